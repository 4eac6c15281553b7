import { preflight, token } from "@/lib/oauth/http";

export const POST = (request: Request) => token(request);
export const OPTIONS = preflight;
