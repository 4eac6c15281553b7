/**
 * Only the Accounts figures of `npm run bench` (sign-up and login against bare scrypt, /health during a sign-up
 * burst), on the same bench build and a fresh PostgreSQL database: for checking a change to the login or sign-up
 * path without the whole run. `node --import tsx bench/accounts.ts`
 */
import { createTestDatabase } from "@/lib/db/testing";
import { benchAuth } from "./auth";
import { ensureBenchBuild, startApp } from "./lib/app";
import { table } from "./lib/figures";

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const build = ensureBenchBuild(log);
if (build.built) log(`built in ${build.buildSeconds.toFixed(0)} s`);
const database = await createTestDatabase();
try {
  const app = await startApp(build.dir, { databaseUrl: database.url });
  try {
    console.log(table(await benchAuth(app)));
  } finally {
    await app.stop();
  }
} finally {
  await database.drop();
}
