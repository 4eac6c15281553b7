/**
 * The steps of a sandbox's start, timed for the bench (bench/sandbox.ts): which of them a cold start waits for,
 * and which were done ahead (a spare's network and container, spares.ts). Nothing listens in the app: a step is
 * then only its work.
 */

export type SandboxStep = "network" | "create" | "start" | "first_request" | "isolation" | "copy";

/** What a step reports beside its time: the first request, how many scripts PHP compiled and took cached. */
export type StepDetail = Record<string, number | boolean>;

export type StepRecord = { step: SandboxStep; sandboxId: string; startedAt: number; ms: number; detail?: StepDetail };

let listener: ((record: StepRecord) => void) | undefined;

/** Listens to every step of this process's sandbox starts (one listener; undefined stops). */
export function onSandboxStep(next: ((record: StepRecord) => void) | undefined) {
  listener = next;
}

export async function timedStep<T>(
  step: SandboxStep,
  sandboxId: string,
  work: () => Promise<T>,
  detailOf?: (result: T) => StepDetail | undefined,
): Promise<T> {
  if (!listener) return work();
  const startedAt = performance.now();
  let detail: StepDetail | undefined;
  try {
    const result = await work();
    detail = detailOf?.(result);
    return result;
  } finally {
    listener?.({ step, sandboxId, startedAt, ms: performance.now() - startedAt, ...(detail ? { detail } : {}) });
  }
}
