/**
 * Server start-up: validate the configuration (a wrong variable stops the server with its name), open the database
 * (PostgreSQL migrations are applied here, before the first request), start the periodic sweeps and sandboxes.
 */
import { env, EnvError } from "@/lib/env";
import { getDatabase } from "@/lib/db";
import { log } from "@/lib/log";
import { startMaintenance } from "@/lib/maintenance";
import { registerHealthDetail } from "@/lib/health";
import { breakerSummary } from "@/lib/agent/breaker";

export async function boot() {
  try {
    env();
  } catch (error) {
    if (error instanceof EnvError) {
      process.stderr.write(`\n${error.message}\n\nSee .env.example for every variable and its meaning.\n\n`);
      process.exit(1);
    }
    throw error;
  }
  try {
    const { kind } = await getDatabase();
    if (kind === "memory") log.warn("DATABASE_URL is empty: accounts and sites live in memory and are lost at restart");
  } catch (error) {
    // The app still starts: /health reports the store as unreachable, and the next request retries.
    log.error("database not reachable at start-up", { error });
  }
  startMaintenance();
  registerHealthDetail("breakers", breakerSummary);
  const { startSandboxes } = await import("@/lib/sandbox");
  startSandboxes();
}
