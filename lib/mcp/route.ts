/** `/mcp` as a route handler: the bearer check, then the MCP server; every failure in the right error format. */
import { errorResponse } from "@/lib/http/route";
import { isOAuthError, oauthErrorResponse } from "@/lib/oauth/errors";
import { CORS } from "@/lib/oauth/http";
import { authenticateMcp } from "@/lib/oauth/tokens";
import { handleMcp } from "./server";

export async function handleMcpRoute(request: Request): Promise<Response> {
  let response: Response;
  try {
    response = await handleMcp(request, await authenticateMcp(request));
  } catch (error) {
    response = isOAuthError(error) ? oauthErrorResponse(error) : errorResponse(error, request);
  }
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(CORS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
