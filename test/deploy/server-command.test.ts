/**
 * One command line for the production server (docs/operations.md, "The server's memory"): `npm start`, the image's
 * ENTRYPOINT and the servers the bench and the tests start run node with the same V8 flags, so the memory the bench measures is the memory
 * people get. The flags themselves: node accepts them (a Node upgrade whose V8 drops one would make the server
 * refuse to start: this fails first), and the young generation they set is the one V8 uses.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { npmStartArgs } from "@/test/start-command";

const root = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

const npmStart = () =>
  (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;

function imageEntrypoint(): string[] {
  const line = readFileSync(path.join(root, "Containerfile"), "utf8")
    .split("\n")
    .find((l) => l.startsWith("ENTRYPOINT "));
  return JSON.parse(line!.slice("ENTRYPOINT ".length)) as string[];
}

describe("the production server's command", () => {
  it("is the same in npm start, the image and the bench", () => {
    const start = npmStart().split(/\s+/);
    expect(start[0]).toBe("node");
    expect(start.at(-1)).toBe("server.mjs");
    expect(start).toEqual(expect.arrayContaining(["--max-semi-space-size=4", "--heap-growing-percent=200"]));
    expect(imageEntrypoint()).toEqual(start);
    // The bench, the built-app tests and the Chromium specs' own instances start it with these arguments.
    expect(npmStartArgs()).toEqual(start.slice(1));
  });

  it("sets a young generation V8 takes: 4 MiB semi-spaces instead of 16", async () => {
    const flags = npmStart().split(/\s+/).slice(1, -1);
    // Objects that survive a few scavenges each make V8 grow its new space up to the limit.
    const probe =
      "const v8 = require('node:v8'); const kept = []; " +
      "for (let i = 0; i < 3e6; i++) { kept.push({ i }); if (kept.length > 2e5) kept.splice(0, 1e5); } " +
      "console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)";
    const newSpace = async (args: string[]) => Number((await run(process.execPath, [...args, "-e", probe])).stdout);
    const [tuned, plain] = [await newSpace(flags), await newSpace([])];
    // New space is two semi-spaces of at most 4 MiB (measured: 8 MiB with the flag, 32 MiB without).
    expect(tuned).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(plain).toBeGreaterThan(tuned);
  });
});
