/**
 * The README's "Try it end to end on one machine" section as a newcomer meets it: its words (what to click, what to
 * type) and its shell lines, run as written in a fresh copy of the project (so a developer's own `.env`, `.data/`
 * and `.dev-secrets.json` are never touched). The copy shares the installed `node_modules` by hard links.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { environmentWithout, ROOT, stopGroup } from "./app-process";

export const TRY_HEADING = "## Try it end to end on one machine";

/** The section's prose (whitespace folded, as a reader reads it) and its `bash` blocks, each as its non-empty lines. */
export function readmeTrySection(): { prose: string; blocks: string[][] } {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf(TRY_HEADING);
  if (start < 0) throw new Error(`README.md has no "${TRY_HEADING}" section`);
  const end = readme.indexOf("\n## ", start + TRY_HEADING.length);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) =>
    match[1]!.split("\n").filter((line) => line.trim() !== ""),
  );
  const prose = section.replace(/```[\s\S]*?```/g, " ").replace(/\s+/g, " ");
  return { prose, blocks };
}

const LEFT_OUT = new Set(["node_modules", ".next", ".git", ".cache", ".env", ".dev-secrets.json", ".data"]);

/** A fresh copy of the project, as a clone would be, with the installed `node_modules` hard-linked in. */
export function freshCopy(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "sitewright-readme-"));
  cpSync(ROOT, dir, {
    recursive: true,
    filter: (from) => !LEFT_OUT.has(path.relative(ROOT, from).split(path.sep)[0] ?? ""),
  });
  const linked = spawnSync("cp", ["-al", path.join(ROOT, "node_modules"), path.join(dir, "node_modules")]);
  if (linked.status !== 0) throw new Error(`cp -al node_modules: ${linked.stderr}`);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 500 }) };
}

export type Shell = { child: ChildProcess; output(): string; stop(): Promise<void> };

/**
 * One of the README's shell lines, run by bash in `dir` in its own process group, with none of the app's
 * configuration inherited (only what the line and the folder give it); its output is kept and logged.
 */
export function runShellLine(dir: string, line: string, logName: string): Shell {
  mkdirSync(path.join(ROOT, ".cache"), { recursive: true });
  const log = path.join(ROOT, ".cache", `${logName}.log`);
  const out = openSync(log, "a");
  const child = spawn("bash", ["-c", line], {
    cwd: dir,
    env: environmentWithout() as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    writeSync(out, chunk);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return { child, output: () => output, stop: () => stopWholeGroup(child) };
}

/** Stops the line's process group and waits until none of it is left (npm's and Next's children outlive bash). */
async function stopWholeGroup(child: ChildProcess): Promise<void> {
  await stopGroup(child);
  const alive = () => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let waited = 0; alive() && waited < 15_000; waited += 250) await new Promise((r) => setTimeout(r, 250));
  if (alive()) process.kill(-child.pid!, "SIGKILL");
}

/** Waits until the line's output matches `pattern` (or it exits first, or `ms` pass). */
export async function waitForOutput(shell: Shell, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = pattern.exec(shell.output());
    if (found) return found;
    if (shell.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no ${pattern} in the output (exit ${shell.child.exitCode}):\n${shell.output().slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The README's `.env` block with the values this machine has instead of the README's examples: the CA path site:local
 * printed, the local scripted model for Ollama (the README says only these three change), and a free port for 3000
 * (the machine is shared); every other line, comment and optional note stays as written.
 */
export function dotenvFromReadme(lines: string[], values: Record<string, string>): string {
  const used = new Set<string>();
  const out = lines.map((line) => {
    const match = /^([A-Z_]+)=(\S*)(.*)$/.exec(line);
    if (!match || !(match[1]! in values)) return line;
    used.add(match[1]!);
    return `${match[1]}=${values[match[1]!]}${match[3]}`;
  });
  const missing = Object.keys(values).filter((name) => !used.has(name) && name !== "PORT");
  if (missing.length) throw new Error(`the README's .env block has no ${missing.join(", ")}`);
  return `${out.join("\n")}\n${values.PORT ? `PORT=${values.PORT}\n` : ""}`;
}
