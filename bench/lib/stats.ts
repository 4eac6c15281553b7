/** Small statistics and timing helpers shared by the benchmarks. */

/** The p-th percentile (nearest rank) of some samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export const round = (value: number, digits = 2) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : value;

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident memory of a process and its descendants in MiB (Linux), or NaN. */
export async function rssMiB(pid: number): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
    const children = (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => ""))
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    let total = kb / 1024;
    for (const child of children) total += (await rssMiB(child)) || 0;
    return total;
  } catch {
    return Number.NaN;
  }
}
