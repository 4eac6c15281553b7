/**
 * Server start-up: validate the configuration (a wrong variable stops the server with its name), open the database
 * (PostgreSQL migrations are applied here, before the first request), start the periodic sweeps and sandboxes.
 */
import { env, EnvError } from "@/lib/env";
import { getDatabase } from "@/lib/db";
import { log } from "@/lib/log";
import { startMaintenance } from "@/lib/maintenance";
import { registerHealthDetail } from "@/lib/health";
import { breakerSnapshot } from "@/lib/agent/breaker";
import { countSandboxes } from "@/lib/db/queries";
import { sandboxConfig } from "@/lib/sandbox/config";

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
  const { SMTP_URL, NODE_ENV } = env();
  if (!SMTP_URL && NODE_ENV === "production") {
    log.error("SMTP_URL is empty: password reset and verification mails cannot be sent (docs/operations.md, Mail)");
  }
  startMaintenance();
  // While ENCRYPTION_KEY_PREVIOUS is set, stored credentials move to the current key (docs/deployment.md).
  const { rotateCredentialsAtBoot } = await import("@/lib/sites/key-rotation");
  void rotateCredentialsAtBoot();
  registerHealthDetail("breakers", breakerCounts);
  // The sandbox modules (and the engine's client) load only where sandboxes are on (issue 39: the app's memory).
  if (sandboxConfig().enabled) {
    registerHealthDetail("sandboxPool", sandboxPoolCounts, { background: true });
    const { startSandboxes } = await import("@/lib/sandbox");
    startSandboxes();
    const { registerSandboxShutdown } = await import("@/lib/sandbox/shutdown");
    registerSandboxShutdown();
  }
  // Bulk jobs a restart interrupted carry on; a job another instance was running is taken over when its lease ends.
  const { kickJobRunner } = await import("@/lib/workflows/bulk-job");
  void kickJobRunner();
  setInterval(() => void kickJobRunner(), 30_000).unref();
}

const byState = (snapshots: Record<string, { state: string }>) => {
  const counts: Record<string, number> = { closed: 0, open: 0, half_open: 0 };
  for (const { state } of Object.values(snapshots)) counts[state] = (counts[state] ?? 0) + 1;
  return counts;
};

/** `/health` details: circuit breakers counted by state, once the agent has made one (no site or model ids). */
function breakerCounts() {
  const { models, sites } = breakerSnapshot();
  if (Object.keys(models).length + Object.keys(sites).length === 0) return undefined;
  return { models: byState(models), sites: byState(sites) };
}

/** `/health` details: the warm pool (ready, starting) and the capacity handed out to users. */
async function sandboxPoolCounts() {
  const { poolSize, max } = sandboxConfig();
  const [ready, starting, inUse] = await Promise.all([
    countSandboxes({ statuses: ["pooled"] }),
    countSandboxes({ statuses: ["warming"] }),
    countSandboxes({ statuses: ["starting", "ready"] }),
  ]);
  const { getSandboxManager } = await import("@/lib/sandbox");
  // "not_isolated": sandboxes are refused until the operator installs the firewall rules (docs/operations.md).
  return { ready, starting, size: poolSize, inUse, capacity: max, network: await getSandboxManager().networkState() };
}
