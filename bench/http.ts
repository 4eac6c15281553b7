/**
 * /health against an empty route handler in the same production server, and plain Node http for scale: autocannon
 * on loopback, 10 connections, five alternating 2 s rounds each (10 s per target). Goal (issue 7): /health at least 90% of the empty route's
 * throughput, p99 under 20 ms.
 */
import path from "node:path";
import { repoRoot, type RunningApp } from "./lib/app";
import { figure, type Figure } from "./lib/figures";
import { compareLoad } from "./lib/load";
import { startListening } from "./lib/process";
import { sized } from "./lib/smoke";

export const HTTP_LOAD = { connections: 10, seconds: sized(2), rounds: sized(5), warmupSeconds: sized(2) };

export async function benchHttp(app: RunningApp): Promise<Figure[]> {
  const plain = await startListening([path.join(repoRoot, "bench/lib/plain-server.mjs")], { cwd: repoRoot });
  try {
    const r = await compareLoad(
      { empty: `${app.url}/bench/empty`, health: `${app.url}/health`, plain: plain.url },
      HTTP_LOAD,
    );
    const ratio = r.health!.requestsPerSecond / r.empty!.requestsPerSecond;
    const failures = r.health!.errors + r.health!.non2xx + r.empty!.errors + r.empty!.non2xx;
    const s = "HTTP";
    return [
      figure(s, "/health throughput", r.health!.requestsPerSecond, "req/s"),
      figure(s, "empty route throughput (same build)", r.empty!.requestsPerSecond, "req/s"),
      figure(s, "/health vs empty route", ratio * 100, "%", { text: "≥ 90%", ok: ratio >= 0.9 }),
      figure(s, "/health p50", r.health!.p50Ms, "ms"),
      figure(s, "/health p99", r.health!.p99Ms, "ms", { text: "< 20 ms", ok: r.health!.p99Ms < 20 }),
      figure(s, "empty route p99", r.empty!.p99Ms, "ms"),
      figure(s, "plain Node http throughput", r.plain!.requestsPerSecond, "req/s"),
      figure(s, "plain Node http p99", r.plain!.p99Ms, "ms"),
      figure(s, "errors and non-2xx answers", failures, "", { text: "0", ok: failures === 0 }),
    ];
  } finally {
    await plain.stop();
  }
}
