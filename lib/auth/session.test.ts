import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { insertUser } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { createSession, readSession } from "./session";

const secretAtStart = process.env.SESSION_SECRET;
const oldSecret = "the-old-session-secret-of-32-characters-or-more";
const newSecret = "the-new-session-secret-of-32-characters-or-more";
useTestDatabase();
afterEach(() => resetEnvForTests({ SESSION_SECRET: secretAtStart, SESSION_SECRET_PREVIOUS: undefined }));

async function cookieSealedUnder(secret: string) {
  resetEnvForTests({ SESSION_SECRET: secret, SESSION_SECRET_PREVIOUS: undefined });
  const userId = randomUUID();
  await insertUser({
    id: userId,
    email: `${userId}@example.com`,
    name: null,
    passwordHash: "x",
    createdAt: new Date(),
  });
  return { userId, cookie: (await createSession(userId)).value };
}

describe("SESSION_SECRET rotation", () => {
  it("still opens a cookie sealed under a secret listed in SESSION_SECRET_PREVIOUS", async () => {
    const { userId, cookie } = await cookieSealedUnder(oldSecret);
    resetEnvForTests({ SESSION_SECRET: newSecret, SESSION_SECRET_PREVIOUS: oldSecret });
    expect((await readSession(cookie))?.userId).toBe(userId);
  });

  it("refuses that cookie once the old secret is no longer listed", async () => {
    const { cookie } = await cookieSealedUnder(oldSecret);
    resetEnvForTests({ SESSION_SECRET: newSecret, SESSION_SECRET_PREVIOUS: undefined });
    expect(await readSession(cookie)).toBeUndefined();
  });

  it("seals new cookies under the current secret only", async () => {
    resetEnvForTests({ SESSION_SECRET: newSecret, SESSION_SECRET_PREVIOUS: oldSecret });
    const userId = randomUUID();
    await insertUser({
      id: userId,
      email: `${userId}@example.com`,
      name: null,
      passwordHash: "x",
      createdAt: new Date(),
    });
    const { value } = await createSession(userId);
    resetEnvForTests({ SESSION_SECRET: oldSecret, SESSION_SECRET_PREVIOUS: undefined });
    expect(await readSession(value)).toBeUndefined();
    resetEnvForTests({ SESSION_SECRET: newSecret, SESSION_SECRET_PREVIOUS: undefined });
    expect((await readSession(value))?.userId).toBe(userId);
  });
});
