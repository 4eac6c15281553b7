/**
 * Health: the store's reachability is probed in the background at most once a second and the last answer is
 * served, so `/health` itself does no slow I/O and a flood of probes cannot flood the database. Details other parts
 * register (breakers, the sandbox pool) live in the process-wide registry: boot registers them from the
 * instrumentation bundle and the route reads them from its own.
 */
import { env } from "@/lib/env";
import { pingStore } from "@/lib/db/queries";
import { log } from "@/lib/log";
import packageJson from "@/package.json";
import { processState } from "@/lib/process-state";

const PROBE_INTERVAL_MS = 1000;
const PROBE_TIMEOUT_MS = 2000;

type Snapshot = () => unknown;
/** `background`: the snapshot does I/O, so it runs with the store probe (at most once a second), last value served. */
type Detail = { snapshot: Snapshot; background: boolean; last?: unknown };

type StoreState = { ok: boolean; checkedAt: number; probing?: Promise<void>; details: Map<string, Detail> };
const state: StoreState = processState<StoreState>("health", () => ({
  ok: false,
  checkedAt: 0,
  details: new Map(),
}));

const withTimeout = <T>(work: Promise<T>, what: string) =>
  Promise.race([
    work,
    new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error(`${what} timed out`)), PROBE_TIMEOUT_MS).unref();
    }),
  ]);

async function probe() {
  try {
    await withTimeout(pingStore(), "store probe");
    if (!state.ok) log.info("store reachable");
    state.ok = true;
  } catch (error) {
    if (state.ok || state.checkedAt === 0) log.error("store unreachable", { error });
    state.ok = false;
  }
  await refreshDetails();
  state.checkedAt = Date.now();
  state.probing = undefined;
}

async function refreshDetails() {
  await Promise.all(
    [...state.details.entries()].map(async ([name, detail]) => {
      if (!detail.background) return;
      try {
        detail.last = await withTimeout(Promise.resolve(detail.snapshot()), `health detail ${name}`);
      } catch (error) {
        log.warn("health detail failed", { name, error });
        detail.last = undefined;
      }
    }),
  );
}

async function storeOk(): Promise<boolean> {
  const age = Date.now() - state.checkedAt;
  if (age >= PROBE_INTERVAL_MS && !state.probing) state.probing = probe();
  if (state.checkedAt === 0) await state.probing; // first request waits for a real answer
  return state.ok;
}

/**
 * A named entry of `details`, for operators: never user or site ids. A snapshot that answers undefined is left
 * out (e.g. breakers before the agent ran). One that does I/O is registered with `background: true`.
 */
export function registerHealthDetail(name: string, snapshot: Snapshot, options: { background?: boolean } = {}) {
  state.details.set(name, { snapshot, background: options.background ?? false });
}

function currentDetails(): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const [name, detail] of state.details) {
    const shown = detail.background ? detail.last : detail.snapshot();
    if (shown !== undefined) details[name] = shown;
  }
  return details;
}

export async function healthReport() {
  const { SANDBOX_DRIVER, OPENAI_API_KEY } = env();
  const store = await storeOk();
  const details = currentDetails();
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
      // How cold sandboxes are made (API.md v1.3): never from a checkpoint here (CRIU cannot run on these hosts'
      // kernels); with the docker driver, from spares prepared ahead (lib/sandbox/spares.ts).
      sandboxes: {
        driver: SANDBOX_DRIVER ?? null,
        checkpoint: false,
        prepared: SANDBOX_DRIVER === "docker",
      },
      ...(Object.keys(details).length ? { details } : {}),
    },
  };
}

export function resetHealthForTests() {
  state.ok = false;
  state.checkedAt = 0;
  state.probing = undefined;
}
