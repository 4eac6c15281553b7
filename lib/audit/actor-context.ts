/**
 * Who is acting, for the length of one request or turn: the door (chat route, MCP call, job runner) sets it, and the
 * places that record acts (change sets, their items, the change audit) read it, so the actor need not be threaded
 * through every layer between. Kept in process state: Next.js may load this module once per bundle.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Actor } from "@/lib/db/schema";
import { processState } from "@/lib/process-state";

const storage = processState("audit.actor", () => new AsyncLocalStorage<Actor>());

export function withActor<T>(actor: Actor, work: () => T): T {
  return storage.run(actor, work);
}

/** The actor of the request under way, or null (a background task nobody started, a test). */
export function currentActor(): Actor | null {
  return storage.getStore() ?? null;
}

/** The same person, acting through a job they started (its items are asked for by the job). */
export function asJob(actor: Actor | null): Actor | null {
  return actor ? { userId: actor.userId, name: actor.name, door: "job" } : null;
}
