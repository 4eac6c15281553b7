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

// The routes WordPress calls (POST /sites/redeem when pairing, /sites/plugin/calls for its abilities) are compiled
// once the app answers, before anyone pairs: `next dev` compiles a route on its first request, which took longer
// than the plugin's 15 s wait on a busy machine, and the plugin said the app was unreachable.
const PLUGIN_ROUTES = ["/sites/redeem", "/sites/plugin/calls"];
async function compilePluginRoutes() {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) return;
    const up = await fetch(`http://localhost:${port}/health`).then(
      () => true,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // A GET compiles the route as well as a POST would; its answer (405) does not matter.
  for (const route of PLUGIN_ROUTES) await fetch(`http://localhost:${port}${route}`).catch(() => undefined);
}
void compilePluginRoutes();
