/**
 * Every command the README and docs/ give works as root on a fresh Debian 12, which has no `sudo`, and as a user:
 * no fenced command uses `sudo` (the prose says "as root, or with sudo as a user"), no script calls it, and each
 * setup script that needs root says so to a user before it changes anything.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const DOCS = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const SETUP = path.join(ROOT, "scripts", "setup");

/** `sudo` where a command starts: a line's start (a commented-out command too), or after `&&`, `;`, `|`, `(`. */
const SUDO_COMMAND = /(^|&&|;|\||\()\s*(#\s*)?(\$\s*)?sudo\s/m;

/** The lines of every fenced code block in a Markdown file, with their line numbers. */
function fencedLines(file: string) {
  const lines = readFileSync(path.join(ROOT, file), "utf8").split("\n");
  const found: Array<{ where: string; text: string }> = [];
  let inside = false;
  lines.forEach((text, i) => {
    if (/^\s*```/.test(text)) inside = !inside;
    else if (inside) found.push({ where: `${file}:${i + 1}`, text });
  });
  return found;
}

describe("commands that run as root without sudo", () => {
  it("gives no fenced command in the README or docs/ that calls sudo", () => {
    const withSudo = DOCS.flatMap(fencedLines).filter(({ text }) => SUDO_COMMAND.test(text));
    expect(withSudo.map(({ where, text }) => `${where}: ${text.trim()}`)).toEqual([]);
  });

  it("has no script that calls sudo", () => {
    const scripts = readdirSync(path.join(ROOT, "scripts"), { recursive: true, encoding: "utf8" }).filter((f) =>
      /\.(sh|mjs|ts)$/.test(f),
    );
    expect(scripts.length).toBeGreaterThan(5);
    // Quoted text (a message telling a user to use sudo) is not a call.
    const calling = scripts.filter((f) =>
      SUDO_COMMAND.test(readFileSync(path.join(ROOT, "scripts", f), "utf8").replace(/"[^"\n]*"/g, '""')),
    );
    expect(calling).toEqual([]);
  });

  it.each(["system.sh", "podman.sh", "sandbox-network.sh", "kubernetes.sh"])(
    "tells a user to run %s as root or with sudo, and changes nothing",
    (script) => {
      // As `nobody`: the check comes first, so no apt-get, no /etc write is even tried.
      const run = spawnSync("runuser", ["-u", "nobody", "--", "bash", path.join(SETUP, script)], {
        encoding: "utf8",
        env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } as Record<string, string> as NodeJS.ProcessEnv,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`run as root, or as a user with sudo: sudo bash scripts/setup/${script}`);
      expect(run.stderr).not.toMatch(/installing|Permission denied/);
    },
  );
});
