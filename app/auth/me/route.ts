import { json, route } from "@/lib/http/route";

export const GET = route({ auth: "session" }, async ({ session }) => json(200, { user: session.user }));
