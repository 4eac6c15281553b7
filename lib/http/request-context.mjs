/**
 * Request ids and the access log, decided where the request enters the process (server.mjs): every request gets an
 * id (a trusted proxy's `X-Request-Id` when TRUSTED_PROXY_HOPS > 0 and it looks sane, else a fresh UUID), returned
 * in the response's `X-Request-Id`, kept in an AsyncLocalStorage that lib/log.ts reads (so a route's log lines
 * carry it), and one access line per request. Plain JavaScript, so `npm start` runs it without a compile step.
 * The access line names the method, the path without its query (codes and tokens travel in queries), the status,
 * the duration and the id: never headers, cookies or bodies.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

export const REQUEST_ID_HEADER = "x-request-id";
/** What an incoming id may look like: a proxy's UUID, hex or base64-ish token, never free text or a log line. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

const KEY = Symbol.for("sitewright.request-context");

/** The process's one store (server.mjs and every Next.js bundle of lib/log.ts share it through globalThis). */
export function requestContext() {
  const holder = globalThis;
  holder[KEY] ??= new AsyncLocalStorage();
  return holder[KEY];
}

/** A trusted proxy's id when it is sane; otherwise (no trusted proxy, or a client's own header) a fresh one. */
export function requestIdFor(incoming, hops) {
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  if (hops > 0 && typeof value === "string" && SANE_REQUEST_ID.test(value)) return value;
  return randomUUID();
}

/** `/a/b?code=123` → `/a/b`: queries can carry codes and tokens, so they never reach the log. */
export function pathWithoutQuery(url) {
  const text = String(url ?? "/");
  const end = text.search(/[?#]/);
  return end === -1 ? text : text.slice(0, end);
}

/** The access line, one JSON object per request (the same shape lib/log.ts writes). */
export function accessRecord({ method, url, status, startedAt, requestId }) {
  return {
    time: new Date().toISOString(),
    level: "info",
    message: "request",
    method,
    path: pathWithoutQuery(url),
    status,
    durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
    requestId,
  };
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Whether info lines are written under LOG_LEVEL (read per call: .env is loaded after this module). */
export function accessLogEnabled() {
  const level = process.env.LOG_LEVEL || (process.env.NODE_ENV === "test" ? "silent" : "info");
  return (LEVELS[level] ?? LEVELS.info) <= LEVELS.info;
}

/**
 * Gives `req` its id (replacing any client-sent copy of the header, as Next.js also reads it), sets it on the
 * response, writes the access line when the response ends and runs `next` inside the request's context.
 */
export function withRequestContext(req, res, hops, next, write = (line) => process.stdout.write(line)) {
  const requestId = requestIdFor(req.headers[REQUEST_ID_HEADER], hops);
  const raw = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() !== REQUEST_ID_HEADER) raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  raw.push(REQUEST_ID_HEADER, requestId);
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw);
  req.headers[REQUEST_ID_HEADER] = requestId;
  res.setHeader(REQUEST_ID_HEADER, requestId);
  const startedAt = performance.now();
  let logged = false;
  const done = () => {
    if (logged) return;
    logged = true;
    if (!accessLogEnabled()) return;
    // A client that hung up before the answer finished: 499, as nginx says.
    const status = res.writableFinished ? res.statusCode : 499;
    write(`${JSON.stringify(accessRecord({ method: req.method, url: req.url, status, startedAt, requestId }))}\n`);
  };
  res.once("finish", done);
  res.once("close", done);
  return requestContext().run({ requestId }, next);
}
