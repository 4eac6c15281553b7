import { json, route } from "@/lib/http/route";
import { pairSchema, startPairing } from "@/lib/sites/pairing";

export const POST = route({ auth: "session", body: pairSchema }, async ({ body, session }) => {
  const pairing = await startPairing({ userId: session.userId, url: body.url });
  return json(201, pairing);
});
