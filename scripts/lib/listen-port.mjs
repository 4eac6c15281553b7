/**
 * The port `npm run dev` (scripts/dev.mjs) and `npm start` (server.mjs) listen on, decided before Next.js starts:
 * `-p/--port` on the command line, else PORT from the environment, else PORT from the project's `.env`, else 3000.
 * The environment wins over `.env`, as it does for every other variable (lib/env.ts, Next.js's own loader).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";

/** The value of `-p X`, `-p=X`, `--port X` or `--port=X` (or of the other names given) in `args`. */
export function option(args, names) {
  for (let i = 0; i < args.length; i++) {
    for (const name of names) {
      if (args[i] === name) return args[i + 1];
      if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
    }
  }
  return undefined;
}

/** The variables of `<root>/.env`, or none when there is no such file. */
export function readDotenv(root) {
  let text;
  try {
    text = readFileSync(path.join(root, ".env"), "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return {};
    throw error;
  }
  return parseEnv(text);
}

/** Throws an Error naming the value when it is not a TCP port. */
export function listenPort({ args = [], env = {}, root }) {
  const given = option(args, ["-p", "--port"]) || env.PORT || readDotenv(root).PORT || "3000";
  const port = Number(given);
  if (!/^\d+$/.test(String(given).trim()) || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`not a port: ${given}`);
  }
  return port;
}
