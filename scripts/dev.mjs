// `npm run dev`: `next dev` on the port scripts/lib/listen-port.mjs decides (the environment's PORT, else .env's,
// else 3000). npm's own `${PORT:-3000}` saw only the shell's environment, so PORT in .env was ignored.
// Extra arguments pass through to `next dev` (`npm run dev -- --port 4000` wins over both).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { listenPort } from "./lib/listen-port.mjs";

const root = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
let port;
try {
  port = listenPort({ args, env: process.env, root });
} catch (error) {
  console.error(`npm run dev: ${error.message}`);
  process.exit(1);
}
const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
// The port is passed once, as decided above; every other argument goes to `next dev` as given.
const rest = args.filter((arg, i) => !/^(-p|--port)(=|$)/.test(arg) && !/^(-p|--port)$/.test(args[i - 1] ?? ""));
const child = spawn(process.execPath, [nextBin, "dev", "-p", String(port), ...rest], { cwd: root, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
