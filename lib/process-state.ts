/**
 * The one home for process-wide state. Next.js loads `lib/` once per bundle (instrumentation, route handlers,
 * pages and their server actions), so a module-level variable exists once per bundle, not once per process:
 * anything that must be shared (the database, caches, breakers, timers, generated secrets) lives here, on
 * `globalThis`, under one well-known symbol.
 */
const KEY = Symbol.for("sitewright.process-state");

type Store = Map<string, unknown>;

function store(): Store {
  const holder = globalThis as { [KEY]?: Store };
  let found = holder[KEY];
  if (!found) {
    found = new Map();
    holder[KEY] = found;
  }
  return found;
}

/** The process's one instance of `name`, made by `init` on first use (whichever bundle asks first). */
export function processState<T>(name: string, init: () => T): T {
  const state = store();
  if (!state.has(name)) state.set(name, init());
  return state.get(name) as T;
}

/** Forgets `name`, so the next `processState(name, …)` makes it anew (tests standing in for another process). */
export function forgetProcessStateForTests(name: string) {
  store().delete(name);
}
