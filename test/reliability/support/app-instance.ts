/**
 * One app instance for the reliability tests: a plain Node HTTP server that serves every `app/**\/route.ts` handler
 * the way Next.js calls it (a web Request in, a web Response out, `params` from the folder names), configured only
 * by its environment. Run as its own process (`node --import tsx`), so two of them are two real instances sharing
 * nothing but the database. Prints `READY <port>` on stdout once listening.
 *
 * Why not `next start`: vitest runs before `npm run build` in scripts/test.sh, and a build takes about a minute on
 * this machine; the route handlers, the wrapper and lib/ are the same code either way (the bench measures the
 * real production server).
 */
import { readdirSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { CLIENT_IP_ENV, CLIENT_IP_HEADER, parseProxyHops, stampClientAddress } from "@/lib/http/forwarded.mjs";

type Handler = (
  request: Request,
  context: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response> | Response;
type Segment = { kind: "static"; value: string } | { kind: "param"; name: string } | { kind: "catchAll"; name: string };
type RouteEntry = { file: string; segments: Segment[]; handlers?: Record<string, Handler>; loadError?: unknown };

const appDir = path.join(process.cwd(), "app");

function discoverRoutes(): RouteEntry[] {
  const files = readdirSync(appDir, { recursive: true, encoding: "utf8" }).filter((file) =>
    /(^|\/)route\.ts$/.test(file),
  );
  return files.map((file) => {
    const segments: Segment[] = [];
    for (const part of path.dirname(file).split(path.sep)) {
      if (part === "." || (part.startsWith("(") && part.endsWith(")"))) continue; // route groups are not in the URL
      const catchAll = /^\[\.\.\.(\w+)\]$/.exec(part);
      const param = /^\[(\w+)\]$/.exec(part);
      segments.push(
        catchAll
          ? { kind: "catchAll", name: catchAll[1]! }
          : param
            ? { kind: "param", name: param[1]! }
            : { kind: "static", value: part },
      );
    }
    return { file: path.join(appDir, file), segments };
  });
}

/** Static segments win over dynamic ones, as in Next.js. */
function match(
  routes: RouteEntry[],
  pathname: string,
): { entry: RouteEntry; params: Record<string, string | string[]> } | undefined {
  const parts = pathname
    .split("/")
    .filter(Boolean)
    .map((part) => decodeURIComponent(part));
  const ranked = [...routes].sort((a, b) => rank(b) - rank(a));
  for (const entry of ranked) {
    const params: Record<string, string | string[]> = {};
    let ok = true;
    let i = 0;
    for (const segment of entry.segments) {
      if (segment.kind === "catchAll") {
        if (i >= parts.length) ok = false;
        else params[segment.name] = parts.slice(i);
        i = parts.length;
        break;
      }
      const part = parts[i++];
      if (part === undefined) ok = false;
      else if (segment.kind === "static" && segment.value !== part) ok = false;
      else if (segment.kind === "param") params[segment.name] = part;
      if (!ok) break;
    }
    if (ok && i === parts.length) return { entry, params };
  }
  return undefined;
}
const rank = (entry: RouteEntry) =>
  entry.segments.reduce((sum, s) => sum * 3 + (s.kind === "static" ? 2 : s.kind === "param" ? 1 : 0), 1);

function toRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(new URL(req.url ?? "/", origin), {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
    signal,
    duplex: "half",
  } as RequestInit);
}

async function send(res: ServerResponse, response: Response) {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const body = Readable.fromWeb(response.body as never);
  body.on("error", () => res.destroy());
  body.pipe(res);
}

function plain(res: ServerResponse, status: number, code: string, message: string) {
  res
    .writeHead(status, { "content-type": "application/json; charset=utf-8" })
    .end(JSON.stringify({ error: { code, message } }));
}

async function main() {
  // As server.mjs does: this server decides the client address (TRUSTED_PROXY_HOPS) and passes it on.
  const hops = parseProxyHops(process.env.TRUSTED_PROXY_HOPS);
  process.env[CLIENT_IP_ENV] = CLIENT_IP_HEADER;
  const routes = discoverRoutes();
  for (const entry of routes) {
    try {
      entry.handlers = (await import(pathToFileURL(entry.file).href)) as Record<string, Handler>;
    } catch (error) {
      entry.loadError = error; // answered as 500 on that path only: other routes keep working
      process.stderr.write(`could not load ${entry.file}: ${String(error)}\n`);
    }
  }

  const server = createServer(async (req, res) => {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    try {
      stampClientAddress(req, hops);
      const origin = `http://${req.headers.host ?? "localhost"}`;
      const found = match(routes, new URL(req.url ?? "/", origin).pathname);
      if (!found) return plain(res, 404, "not_found", "No such route.");
      const handler = found.entry.handlers?.[req.method ?? "GET"];
      if (found.entry.loadError) return plain(res, 500, "internal_error", "The route could not be loaded.");
      if (typeof handler !== "function") return plain(res, 405, "method_not_allowed", "Method not allowed.");
      const response = await handler(toRequest(req, origin, controller.signal), {
        params: Promise.resolve(found.params),
      });
      await send(res, response);
    } catch (error) {
      process.stderr.write(`unhandled error in a route handler: ${String((error as Error)?.stack ?? error)}\n`);
      if (!res.headersSent) plain(res, 500, "internal_error", "Unhandled error.");
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 5000;
  server.listen({ port: 0, host: "127.0.0.1", backlog: 2048 }, () => {
    const address = server.address();
    process.stdout.write(`READY ${typeof address === "object" && address ? address.port : 0}\n`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

await main();
