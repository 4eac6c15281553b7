/**
 * `npm start`'s command as node's arguments (`node <V8 flags> server.mjs` → the flags and the script), read from
 * package.json: the bench (bench/lib/app.ts), the built-app tests (test/built-app.ts) and the Chromium specs' own
 * instances (e2e/support/app-process.ts) start the server exactly as people do, V8 flags included
 * (docs/operations.md, "The server's memory"). `test/deploy/server-command.test.ts` holds the image to the same.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

/** The arguments after `node`; the script as an absolute path when `absolute` (for a caller in another folder). */
export function npmStartArgs(options: { absolute?: boolean } = {}): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const [command, ...args] = scripts.start!.trim().split(/\s+/);
  if (command !== "node" || !args.at(-1)?.endsWith(".mjs"))
    throw new Error(`npm start is not "node [flags] <script>.mjs": ${scripts.start}`);
  return options.absolute ? [...args.slice(0, -1), path.join(root, args.at(-1)!)] : args;
}
