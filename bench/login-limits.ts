/**
 * Login's database work before scrypt, the old way against the new, interleaved on a fresh PostgreSQL database:
 * three rate-limit statements and the account read one after another, against the three buckets in one chained
 * statement (lib/rate-limit.ts, `enforceRateLimits`) with the account read beside it (lib/auth/accounts.ts).
 * `NODE_ENV=test node --import tsx bench/login-limits.ts` (docs/performance.md, "Sign-up and login").
 */
import { randomUUID } from "node:crypto";
import { createTestDatabase } from "@/lib/db/testing";
import { openDatabase, setDatabaseForTests } from "@/lib/db";
import { findUserByEmail, insertUser } from "@/lib/db/queries";
import { enforceAccountAttemptLimits, enforceRateLimit } from "@/lib/rate-limit";
import { median } from "./lib/stats";

const database = await createTestDatabase();
const handle = await openDatabase(database.url);
await setDatabaseForTests(handle);
const email = "someone@example.com";
await insertUser({ id: randomUUID(), email, name: null, passwordHash: "$scrypt$x", createdAt: new Date() });
const limit = 1_000_000;
async function sequentialLimits(ip: string) {
  await enforceRateLimit({ key: `login:ip:${ip}`, limit });
  await enforceRateLimit({ key: `login:account-ip:${email}:${ip}`, limit });
  await enforceRateLimit({ key: `login:account:${email}`, limit: limit * 10 });
  await findUserByEmail({ email });
}
async function chainedLimits(ip: string) {
  await Promise.all([
    enforceAccountAttemptLimits({ scope: "login", account: email, ip, limit }),
    findUserByEmail({ email }),
  ]);
}
const sequential: number[] = [];
const chained: number[] = [];
for (let i = 0; i < 20; i++) {
  await sequentialLimits("w");
  await chainedLimits("w");
}
for (let i = 0; i < 300; i++) {
  let t = performance.now();
  await sequentialLimits(`10.0.0.${i % 200}`);
  sequential.push(performance.now() - t);
  t = performance.now();
  await chainedLimits(`10.0.1.${i % 200}`);
  chained.push(performance.now() - t);
}
console.log(
  `three statements + read in sequence p50 ${median(sequential).toFixed(2)} ms; one chained statement beside the read p50 ${median(chained).toFixed(2)} ms`,
);
await setDatabaseForTests(undefined);
await handle.close();
await database.drop();
