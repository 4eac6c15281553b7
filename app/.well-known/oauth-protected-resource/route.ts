import { preflight, protectedResourceMetadata } from "@/lib/oauth/http";

export const dynamic = "force-dynamic";
export const GET = () => protectedResourceMetadata();
export const OPTIONS = preflight;
