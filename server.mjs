/**
 * `npm start`: the production server. Next.js's own request handler behind a plain Node HTTP server, so that the
 * one thing route handlers cannot see — the TCP peer's address — is decided here and passed on in a header this
 * server controls (lib/http/forwarded.mjs; TRUSTED_PROXY_HOPS, docs/operations.md). Everything else is Next.js's
 * (the documented custom-server API: `next({ dev: false })`, `getRequestHandler()`).
 *
 *   node server.mjs [-p|--port PORT] [-H|--hostname HOST]      (defaults: $PORT, else .env's PORT, else 3000;
 *                                                               every interface)
 *
 * `npm run dev` stays `next dev` (Turbopack, HMR); there route handlers fall back to X-Forwarded-For as before.
 */
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CLIENT_IP_ENV, CLIENT_IP_HEADER, parseProxyHops, stampClientAddress } from "./lib/http/forwarded.mjs";
import { withRequestContext } from "./lib/http/request-context.mjs";
import { listenPort, option } from "./scripts/lib/listen-port.mjs";

process.env.NODE_ENV ??= "production";
const root = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
let port;
try {
  // Decided before Next.js loads .env (in prepare()), so PORT in .env counts here too.
  port = listenPort({ args, env: process.env, root });
} catch (error) {
  console.error(`server.mjs: ${error.message}`);
  process.exit(1);
}
const hostname = option(args, ["-H", "--hostname"]);

// Tells lib/http/client-ip.ts that every request carries the header this server sets (set before Next.js starts,
// so any worker it runs inherits it).
process.env[CLIENT_IP_ENV] = CLIENT_IP_HEADER;

const { default: next } = await import("next");
const app = next({ dev: false, dir: root, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

// Read after prepare(): Next.js has loaded .env by then, as lib/env.ts sees it.
let hops;
try {
  hops = parseProxyHops(process.env.TRUSTED_PROXY_HOPS);
} catch (error) {
  console.error(`server.mjs: ${error.message}`);
  process.exit(1);
}
const server = createServer((req, res) => {
  stampClientAddress(req, hops);
  // A request id for the response header, the route's log lines and one access line (docs/deployment.md, "Logs").
  withRequestContext(req, res, hops, () =>
    handle(req, res).catch((error) => {
      console.error("server.mjs: request failed", error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("Internal Server Error");
    }),
  );
});

// A port another process holds is the operator's mistake to fix, said plainly, with a failing exit code.
server.on("error", (error) => {
  const where = `${hostname ?? "every interface"}:${port}`;
  console.error(
    error.code === "EADDRINUSE"
      ? `server.mjs: port ${port} is already in use (EADDRINUSE on ${where}); stop the other server or pass -p PORT.`
      : `server.mjs: cannot listen on ${where}: ${error.message}`,
  );
  process.exit(1);
});
server.listen(port, hostname, () => {
  const shown = hostname && hostname !== "0.0.0.0" && hostname !== "::" ? hostname : "localhost";
  console.log(`> Sitewright ready on http://${shown}:${port} (TRUSTED_PROXY_HOPS=${hops})`);
});

let closing = false;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    // The app's own sandbox containers go with it (lib/sandbox/shutdown.ts registers this hook at boot).
    const removeSandboxes = globalThis[Symbol.for("sitewright.shutdown")] ?? (async () => {});
    const sandboxesGone = removeSandboxes().catch((error) => console.error("server.mjs: shutdown failed", error));
    server.close(() => {
      sandboxesGone.then(() => app.close()).finally(() => process.exit(0));
    });
    server.closeIdleConnections?.();
    setTimeout(() => process.exit(0), 10_000).unref();
  });
}
