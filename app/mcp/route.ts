/** The MCP endpoint (docs/mcp.md): bearer tokens only, Streamable HTTP, JSON answers. */
import { handleMcpRoute } from "@/lib/mcp/route";
import { preflight } from "@/lib/oauth/http";

export const dynamic = "force-dynamic";
export const GET = handleMcpRoute;
export const POST = handleMcpRoute;
export const DELETE = handleMcpRoute;
export const OPTIONS = preflight;
