/**
 * A site's own signed call (POST /sites/plugin/calls): found by its URL and token hash, checked by its signature and
 * timestamp, refused when replayed, forged, stale, or from a site whose credentials are another's.
 */
import { createHash, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { insertUser } from "@/lib/db/queries";
import { sites } from "@/lib/db/schema";
import { useTestDatabase } from "@/lib/db/testing";
import { encryptSecret } from "./crypto";
import { authenticatePluginCall, PLUGIN_CALLS_ROUTE } from "./plugin-calls";
import { sign } from "./signing";

const database = useTestDatabase();

async function connectedSite(status: "active" | "revoked" = "active") {
  const userId = randomUUID();
  await insertUser({
    id: userId,
    email: `${userId}@example.com`,
    name: null,
    passwordHash: "x",
    createdAt: new Date(),
  });
  const id = randomUUID();
  const token = `swt_${randomUUID().replaceAll("-", "")}`;
  const secret = `sws_${randomUUID().replaceAll("-", "")}`;
  const url = `https://${id}.example.com`;
  await database
    .current()
    .handle.db.insert(sites)
    .values({
      id,
      userId,
      url,
      status,
      codeHmac: "x",
      codeExpiresAt: new Date(),
      credentials: encryptSecret(JSON.stringify({ token, secret }), id),
      createdAt: new Date(),
    });
  return { id, url, token, secret, tokenHash: createHash("sha256").update(token).digest("hex") };
}

type Keys = Awaited<ReturnType<typeof connectedSite>>;

function signedCall(
  keys: Keys,
  overrides: { body?: Record<string, unknown>; timestamp?: number; secret?: string } = {},
) {
  const body = JSON.stringify({
    siteUrl: `${keys.url}/`,
    operation: "update_page",
    input: { id: 7, title: "Open late" },
    actor: { wpUserId: 1, login: "admin", name: "Ada" },
    ...overrides.body,
  });
  const timestamp = overrides.timestamp ?? Date.now();
  const headers = new Headers({
    authorization: `SitewrightSite ${keys.tokenHash}`,
    "x-sitewright-timestamp": String(timestamp),
    "x-sitewright-signature": sign(overrides.secret ?? keys.secret, {
      timestamp,
      method: "POST",
      route: PLUGIN_CALLS_ROUTE,
      body,
    }),
  });
  return { headers, body };
}

describe("a site's own signed call", () => {
  it("names the site whose token signed it, with the call", async () => {
    const keys = await connectedSite();
    const { headers, body } = signedCall(keys);
    const { site, call } = await authenticatePluginCall(headers, body);
    expect(site.id).toBe(keys.id);
    expect(call).toMatchObject({ operation: "update_page", input: { id: 7 }, actor: { name: "Ada" } });
  });

  it("refuses a replay, a wrong secret, a stale timestamp, a changed body, and another site's token", async () => {
    const keys = await connectedSite();
    const other = await connectedSite();
    const once = signedCall(keys);
    await authenticatePluginCall(once.headers, once.body);
    await expect(authenticatePluginCall(once.headers, once.body)).rejects.toMatchObject({ code: "unauthenticated" });

    const forged = signedCall(keys, { secret: "sws_not_the_secret" });
    await expect(authenticatePluginCall(forged.headers, forged.body)).rejects.toMatchObject({
      code: "unauthenticated",
    });

    const stale = signedCall(keys, { timestamp: Date.now() - 10 * 60_000 });
    await expect(authenticatePluginCall(stale.headers, stale.body)).rejects.toMatchObject({ code: "unauthenticated" });

    const changed = signedCall(keys);
    const tampered = changed.body.replace("Open late", "Closed");
    await expect(authenticatePluginCall(changed.headers, tampered)).rejects.toMatchObject({ code: "unauthenticated" });

    // Signed with its own credentials, but naming another site's URL: that site's token is not the one it holds.
    const elsewhere = signedCall(keys, { body: { siteUrl: other.url } });
    await expect(authenticatePluginCall(elsewhere.headers, elsewhere.body)).rejects.toMatchObject({
      code: "unauthenticated",
    });
  });

  it("refuses a revoked site, and bad input with the contract's 400", async () => {
    const revoked = await connectedSite("revoked");
    const call = signedCall(revoked);
    await expect(authenticatePluginCall(call.headers, call.body)).rejects.toMatchObject({ code: "unauthenticated" });

    const keys = await connectedSite();
    const bad = signedCall(keys, { body: { operation: "DROP TABLE" } });
    await expect(authenticatePluginCall(bad.headers, bad.body)).rejects.toMatchObject({ code: "invalid_input" });
    await expect(authenticatePluginCall(bad.headers, "{not json")).rejects.toMatchObject({ code: "invalid_input" });
    const unsigned = new Headers({ authorization: "Bearer x" });
    await expect(authenticatePluginCall(unsigned, bad.body)).rejects.toMatchObject({ code: "unauthenticated" });
  });
});
