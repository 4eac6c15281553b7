/**
 * The engine proxy: a Docker-API socket for the app that reaches the real engine's socket only for the calls the
 * sandbox driver makes (policy.mjs), so the app never holds a root-equivalent socket (docs/deployment.md, "The
 * sandbox engine"). Per-container calls are forwarded only for containers labelled as sandboxes (looked up first,
 * then addressed by their full id), execs only when this proxy created them; everything else is answered 403 and
 * logged as one JSON line. When the engine cannot be reached the app's connection is dropped, as the engine's own
 * socket would, so the app reports sandboxes as unavailable. Types: server.d.mts.
 */
import { chmodSync, rmSync } from "node:fs";
import http from "node:http";
import {
  checkContainerCreate,
  checkExecCreate,
  checkExecStart,
  checkNetworkCreate,
  containerQuery,
  LABEL_SANDBOX,
  matchRequest,
  Refusal,
  sandboxListQuery,
} from "./policy.mjs";

/** @typedef {import("./policy.d.mts").ProxySettings} ProxySettings */
/** @typedef {import("./policy.d.mts").Operation} Operation */
/** @typedef {{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }} Buffered */

const MAX_BODY_BYTES = 256 * 1024;
const EXEC_TTL_MS = 10 * 60 * 1000;
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"]);

/** @param {string} level @param {string} message @param {Record<string, unknown>} [fields] */
function defaultLog(level, message, fields = {}) {
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields });
  (level === "info" ? process.stdout : process.stderr).write(`${line}\n`);
}

/** @param {http.IncomingMessage} req @returns {Promise<unknown>} */
async function readJson(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Refusal("the request body is too large", 413);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new Refusal("the request body is not JSON", 400);
  }
}

/**
 * @param {{ upstream: string; settings: ProxySettings; log?: typeof defaultLog }} options
 */
export function createEngineProxy(options) {
  const log = options.log ?? defaultLog;
  /** @type {Map<string, number>} exec id → when it stops being startable */
  const execs = new Map();
  let creating = Promise.resolve();

  /** A request to the engine, its answer buffered. @returns {Promise<Buffered>} */
  const ask = (/** @type {string} */ method, /** @type {string} */ path, /** @type {unknown} */ body) =>
    new Promise((resolve, reject) => {
      const request = upstreamRequest(method, path, body, (response) => {
        const chunks = /** @type {Buffer[]} */ ([]);
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on("error", reject);
      });
      request.on("error", reject);
    });

  /** @param {string} method @param {string} path @param {unknown} body @param {(res: http.IncomingMessage) => void} onResponse */
  function upstreamRequest(method, path, body, onResponse) {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const request = http.request(
      {
        socketPath: options.upstream,
        method,
        path,
        headers: payload ? { "content-type": "application/json", "content-length": payload.length } : {},
      },
      onResponse,
    );
    request.end(payload);
    return request;
  }

  /** Streams the engine's answer to the app as it comes (logs and exec output are streams). */
  const forward = (
    /** @type {http.ServerResponse} */ res,
    /** @type {string} */ method,
    /** @type {string} */ path,
    /** @type {unknown} */ body,
    /** @type {((buffered: Buffered) => void) | undefined} */ inspect,
  ) =>
    new Promise((resolve, reject) => {
      const request = upstreamRequest(method, path, body, (response) => {
        const headers = Object.fromEntries(
          Object.entries(response.headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())),
        );
        res.writeHead(response.statusCode ?? 502, headers);
        if (inspect) {
          const chunks = /** @type {Buffer[]} */ ([]);
          response.on("data", (chunk) => chunks.push(chunk));
          response.on("end", () =>
            inspect({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }),
          );
        }
        response.pipe(res);
        response.on("end", resolve);
        response.on("error", reject);
      });
      request.on("error", reject);
    });

  /** The container a per-container call names, if it is a sandbox; its engine answer otherwise passed on. */
  async function sandboxContainer(/** @type {string} */ target) {
    const found = await ask("GET", `/containers/${target}/json`, undefined);
    if (found.status !== 200) return { found };
    const info = JSON.parse(found.body.toString("utf8"));
    if (!info?.Config?.Labels?.[LABEL_SANDBOX]) throw new Refusal(`container ${target} is not a sandbox`);
    return { found, id: /** @type {string} */ (info.Id) };
  }

  /** @param {http.ServerResponse} res @param {Buffered} buffered */
  const reply = (res, buffered) => {
    const type = buffered.headers["content-type"] ?? "application/json";
    res.writeHead(buffered.status, { "content-type": type, "content-length": buffered.body.length });
    res.end(buffered.body);
  };

  const rememberExec = (/** @type {Buffered} */ created) => {
    const now = Date.now();
    for (const [id, until] of execs) if (until < now) execs.delete(id);
    if (created.status === 201 || created.status === 200) {
      const id = JSON.parse(created.body.toString("utf8")).Id;
      if (typeof id === "string") execs.set(id, now + EXEC_TTL_MS);
    }
  };

  /** Creates are one at a time, so the count of sandboxes checked is the count when the create runs. */
  async function createContainer(/** @type {http.ServerResponse} */ res, /** @type {Operation} */ op, body) {
    const checked = checkContainerCreate(body, op.params.get("name"), options.settings);
    const name = op.params.get("name");
    const run = creating.then(async () => {
      const listed = await ask("GET", `/containers/json?${sandboxListQuery(allSandboxes)}`, undefined);
      const count = listed.status === 200 ? JSON.parse(listed.body.toString("utf8")).length : 0;
      if (count >= options.settings.maxSandboxes) {
        throw new Refusal(`at most ${options.settings.maxSandboxes} sandbox containers may exist at once`);
      }
      await forward(res, "POST", `/containers/create${name ? `?name=${encodeURIComponent(name)}` : ""}`, checked);
    });
    creating = run.catch(() => undefined);
    await run;
  }

  /** @param {http.ServerResponse} res @param {Operation} op @param {unknown} body */
  async function containerCall(res, op, body) {
    const { found, id } = await sandboxContainer(/** @type {string} */ (op.target));
    if (!id) return reply(res, found);
    if (op.action === "json") return reply(res, found);
    if (op.action === "start") return forward(res, "POST", `/containers/${id}/start`, undefined);
    if (op.action === "remove") {
      return forward(res, "DELETE", `/containers/${id}?${containerQuery("remove", op.params)}`, undefined);
    }
    if (op.action === "logs") {
      return forward(res, "GET", `/containers/${id}/logs?${containerQuery("logs", op.params)}`, undefined);
    }
    return forward(res, "POST", `/containers/${id}/exec`, checkExecCreate(body), rememberExec);
  }

  /** @param {http.ServerResponse} res @param {Operation} op */
  async function removeNetwork(res, op) {
    const found = await ask("GET", `/networks/${op.target}`, undefined);
    if (found.status !== 200) return reply(res, found);
    const info = JSON.parse(found.body.toString("utf8"));
    if (!String(info?.Name).startsWith("sitewright-net-") || !info?.Labels?.[LABEL_SANDBOX]) {
      throw new Refusal(`network ${op.target} is not a sandbox network`);
    }
    return forward(res, "DELETE", `/networks/${info.Name}`, undefined);
  }

  const startableExec = (/** @type {string} */ id) => {
    const until = execs.get(id);
    if (!until || until < Date.now()) throw new Refusal(`exec ${id} was not created through this proxy`);
  };

  /** @param {http.ServerResponse} res @param {Operation} op @param {unknown} body */
  async function dispatch(res, op, body) {
    switch (op.kind) {
      case "ping":
        return forward(res, op.method, "/_ping", undefined);
      case "imageInspect":
        if (!options.settings.imagePattern.test(/** @type {string} */ (op.target))) {
          throw new Refusal(`image ${op.target} is not the sandbox image`);
        }
        return forward(res, "GET", `/images/${op.target}/json`, undefined);
      case "networkCreate":
        return forward(res, "POST", "/networks/create", checkNetworkCreate(body, options.settings));
      case "networkList":
        return forward(res, "GET", `/networks?${sandboxListQuery(op.params)}`, undefined);
      case "networkRemove":
        return removeNetwork(res, op);
      case "containerCreate":
        return createContainer(res, op, body);
      case "containerList":
        return forward(res, "GET", `/containers/json?${sandboxListQuery(op.params)}`, undefined);
      case "container":
        return containerCall(res, op, body);
      case "execStart":
        startableExec(/** @type {string} */ (op.target));
        return forward(res, "POST", `/exec/${op.target}/start`, checkExecStart(body));
      case "execInspect":
        startableExec(/** @type {string} */ (op.target));
        return forward(res, "GET", `/exec/${op.target}/json`, undefined);
    }
  }

  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
  async function handle(req, res) {
    const method = req.method ?? "GET";
    let op;
    try {
      op = { ...matchRequest(method, req.url ?? "/"), method };
      await dispatch(res, op, method === "POST" ? await readJson(req) : undefined);
    } catch (error) {
      if (error instanceof Refusal) {
        log("warn", "engine call refused", { method, path: (req.url ?? "").split("?")[0], reason: error.message });
        if (res.headersSent) return void res.destroy();
        const body = JSON.stringify({ message: `refused by the Sitewright engine proxy: ${error.message}` });
        res.writeHead(error.status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        return void res.end(body);
      }
      log("error", "the container engine did not answer", { method, error: String(error) });
      // As the engine's own socket would: the app's connection drops, and it reports sandboxes unavailable.
      req.socket.destroy();
    }
  }

  return http.createServer((req, res) => {
    handle(req, res);
  });
}

const allSandboxes = new URLSearchParams({ all: "true", filters: JSON.stringify({ label: [LABEL_SANDBOX] }) });

/**
 * Listens on a unix socket (an old socket file is replaced) readable and writable by its owner and group only.
 * @param {{ listen: string; upstream: string; settings: ProxySettings; log?: typeof defaultLog }} options
 */
export async function startEngineProxy(options) {
  const server = createEngineProxy(options);
  rmSync(options.listen, { force: true });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.listen, () => resolve(undefined));
  });
  chmodSync(options.listen, 0o660);
  return {
    server,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}
