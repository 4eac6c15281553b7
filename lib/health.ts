/**
 * Health: the store's reachability is probed in the background at most once a second and the last answer is
 * served, so `/health` itself does no slow I/O and a flood of probes cannot flood the database.
 */
import { env } from "@/lib/env";
import { pingStore } from "@/lib/db/queries";
import { log } from "@/lib/log";
import packageJson from "@/package.json";

const PROBE_INTERVAL_MS = 1000;
const PROBE_TIMEOUT_MS = 2000;

type StoreState = { ok: boolean; checkedAt: number; probing?: Promise<void> };
const state: StoreState = ((globalThis as { __sitewrightHealth?: StoreState }).__sitewrightHealth ??= { ok: false, checkedAt: 0 });

async function probe() {
  try {
    await Promise.race([
      pingStore(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("store probe timed out")), PROBE_TIMEOUT_MS).unref()),
    ]);
    if (!state.ok) log.info("store reachable");
    state.ok = true;
  } catch (error) {
    if (state.ok || state.checkedAt === 0) log.error("store unreachable", { error });
    state.ok = false;
  } finally {
    state.checkedAt = Date.now();
    state.probing = undefined;
  }
}

async function storeOk(): Promise<boolean> {
  const age = Date.now() - state.checkedAt;
  if (age >= PROBE_INTERVAL_MS && !state.probing) state.probing = probe();
  if (state.checkedAt === 0) await state.probing; // first request waits for a real answer
  return state.ok;
}

/** Extra lines other parts register (breakers, pools): cheap, in-memory snapshots only. */
const extraChecks = new Map<string, () => unknown>();
export function registerHealthDetail(name: string, snapshot: () => unknown) {
  extraChecks.set(name, snapshot);
}

export async function healthReport() {
  const { SANDBOX_DRIVER, OPENAI_API_KEY } = env();
  const store = await storeOk();
  const details = Object.fromEntries([...extraChecks].map(([name, snapshot]) => [name, snapshot()]));
  return {
    healthy: store,
    body: {
      status: store ? "ok" : "degraded",
      version: packageJson.version,
      checks: {
        store: store ? "ok" : "unreachable",
        sandbox: SANDBOX_DRIVER ? "enabled" : "disabled",
        agent: OPENAI_API_KEY ? "enabled" : "disabled",
      },
      ...(extraChecks.size ? { details } : {}),
    },
  };
}

export function resetHealthForTests() {
  state.ok = false;
  state.checkedAt = 0;
  state.probing = undefined;
}
