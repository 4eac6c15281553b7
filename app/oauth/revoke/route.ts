import { preflight, revoke } from "@/lib/oauth/http";

export const POST = (request: Request) => revoke(request);
export const OPTIONS = preflight;
