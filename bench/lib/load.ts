/** HTTP load with autocannon, from this process, against a server in another process. */
import autocannon, { type Result } from "autocannon";
import { median } from "./stats";

export type LoadFigures = {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  requests: number;
  seconds: number;
};

export async function load(url: string, options: { connections?: number; seconds: number }): Promise<LoadFigures> {
  const result: Result = await autocannon({
    url,
    connections: options.connections ?? 10,
    duration: options.seconds,
    pipelining: 1,
  });
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
    seconds: result.duration,
  };
}

/**
 * Several short alternating rounds of each target, so drift on a shared machine hits every target alike.
 * Throughput is the total over all rounds; p50 and p99 are the median of the rounds' (one unlucky round, when
 * something else on the machine woke up, does not decide the figure).
 */
export async function compareLoad(
  targets: Record<string, string>,
  options: { connections: number; seconds: number; rounds: number; warmupSeconds: number },
) {
  for (const url of Object.values(targets))
    await load(url, { connections: options.connections, seconds: options.warmupSeconds });
  const rounds: Record<string, LoadFigures[]> = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const [name, url] of Object.entries(targets))
      rounds[name]!.push(await load(url, { connections: options.connections, seconds: options.seconds }));
  }
  const combined: Record<string, LoadFigures> = {};
  for (const [name, list] of Object.entries(rounds)) {
    const requests = list.reduce((sum, r) => sum + r.requests, 0);
    const seconds = list.reduce((sum, r) => sum + r.seconds, 0);
    combined[name] = {
      requestsPerSecond: requests / seconds,
      p50Ms: median(list.map((r) => r.p50Ms)),
      p99Ms: median(list.map((r) => r.p99Ms)),
      errors: list.reduce((sum, r) => sum + r.errors, 0),
      non2xx: list.reduce((sum, r) => sum + r.non2xx, 0),
      requests,
      seconds,
    };
  }
  return combined;
}
