import { authorizationServerMetadata, preflight } from "@/lib/oauth/http";

export const dynamic = "force-dynamic";
export const GET = () => authorizationServerMetadata();
export const OPTIONS = preflight;
