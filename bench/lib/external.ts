/**
 * Figures from the other parts' benchmark modules (bench/agent.ts, bench/sandbox.ts), each run in its own process
 * so their databases, engines and module state cannot disturb ours. A module that is missing, throws or takes too
 * long is reported as "not available" with the reason, and the rest of the bench goes on.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./app";

export type External = { ok: true; figures: Record<string, number>; seconds: number } | { ok: false; reason: string };

export async function runExternal(file: string, exportName: string, timeoutMs: number): Promise<External> {
  const full = path.join(repoRoot, file);
  if (!existsSync(full)) return { ok: false, reason: `${file} is missing` };
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(repoRoot, "bench/lib/external-child.ts"), full, exportName],
      {
        cwd: repoRoot,
        env: process.env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = /^RESULT (.*)$/m.exec(stdout)?.[1];
      if (code === 0 && line)
        return resolve({ ok: true, figures: JSON.parse(line), seconds: (performance.now() - started) / 1000 });
      const why = signal === "SIGKILL" ? `timed out after ${timeoutMs / 1000} s` : `exited with ${code}`;
      const lastLine = stderr.trim().split("\n").filter(Boolean).at(-1) ?? "";
      resolve({ ok: false, reason: `${exportName}() ${why}${lastLine ? `: ${lastLine.slice(0, 200)}` : ""}` });
    });
  });
}
