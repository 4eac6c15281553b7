import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { insertUser } from "@/lib/db/queries";
import { sandboxes, sites } from "@/lib/db/schema";
import { useTestDatabase } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { decryptSecret, encryptSecret } from "./crypto";
import { rotateCredentialsAtBoot, rotateStoredCredentials } from "./key-rotation";

const keyAtStart = process.env.ENCRYPTION_KEY;
const oldKey = "aa".repeat(32);
const newKey = "bb".repeat(32);
const database = useTestDatabase();
afterEach(() => resetEnvForTests({ ENCRYPTION_KEY: keyAtStart, ENCRYPTION_KEY_PREVIOUS: undefined }));

async function siteSealedUnder(key: string, secret: string) {
  resetEnvForTests({ ENCRYPTION_KEY: key, ENCRYPTION_KEY_PREVIOUS: undefined });
  const userId = randomUUID();
  await insertUser({
    id: userId,
    email: `${userId}@example.com`,
    name: null,
    passwordHash: "x",
    createdAt: new Date(),
  });
  const id = randomUUID();
  await database
    .current()
    .handle.db.insert(sites)
    .values({
      id,
      userId,
      url: `https://${id}.example.com`,
      status: "active",
      codeHmac: "x",
      codeExpiresAt: new Date(),
      credentials: encryptSecret(JSON.stringify({ token: "t", secret }), id),
      createdAt: new Date(),
    });
  return id;
}

const storedCredentials = async (id: string) =>
  (await database.current().handle.db.select().from(sites).where(eq(sites.id, id)))[0]!.credentials!;

describe("npm run keys:rotate (rotateStoredCredentials)", () => {
  it("re-seals every site's credentials under the new key, so the old key can be dropped without re-pairing", async () => {
    const first = await siteSealedUnder(oldKey, "s1");
    const second = await siteSealedUnder(oldKey, "s2");
    resetEnvForTests({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey });
    const report = await rotateStoredCredentials();
    expect(report.sites.rotated).toBeGreaterThanOrEqual(2);
    expect(report.sites.unreadable).toEqual([]);
    expect(report.sandboxes.unreadable).toEqual([]);

    resetEnvForTests({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: undefined });
    expect(JSON.parse(decryptSecret(await storedCredentials(first), first)).secret).toBe("s1");
    expect(JSON.parse(decryptSecret(await storedCredentials(second), second)).secret).toBe("s2");
  });

  it("names the sites no configured key opens and leaves their credentials as they were", async () => {
    const lost = await siteSealedUnder("cc".repeat(32), "s3");
    const before = await storedCredentials(lost);
    resetEnvForTests({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey });
    const report = await rotateStoredCredentials();
    expect(report.sites.unreadable).toContain(lost);
    expect(await storedCredentials(lost)).toBe(before);
    expect(await database.current().handle.db.select().from(sandboxes)).toEqual([]);
  });

  it("runs at start-up while ENCRYPTION_KEY_PREVIOUS is set, so a container operator rotates by restarting", async () => {
    const site = await siteSealedUnder(oldKey, "s4");
    resetEnvForTests({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey });
    await rotateCredentialsAtBoot();
    resetEnvForTests({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: undefined });
    expect(JSON.parse(decryptSecret(await storedCredentials(site), site)).secret).toBe("s4");
  });
});
