import { preflight, register } from "@/lib/oauth/http";

export const POST = (request: Request) => register(request);
export const OPTIONS = preflight;
