/**
 * What the engine proxy lets through to the container engine (docs/deployment.md, "The sandbox engine"): exactly
 * the Docker-API calls the `docker` sandbox driver makes (lib/sandbox/engine.ts), each with its arguments checked,
 * and nothing else. Plain JavaScript with no build step, because the proxy runs outside the app: in its own container
 * from the app's image (deploy/systemd/sitewright-engine-proxy.service). Types: policy.d.mts.
 *
 * A request is matched on its method and raw path (no decoding: what is checked is what is forwarded); a body is
 * parsed, checked key by key against exact-case allowlists (the engine matches JSON keys case-insensitively, so an
 * unknown spelling such as `privileged` is refused, never ignored) and forwarded as the checked value re-serialized,
 * so duplicate keys cannot smuggle a second value past the check.
 */
import { z } from "zod";

export const LABEL_SANDBOX = "sitewright.sandbox";
/** The unprivileged user of the sandbox image (scripts/sandbox/rootfs.sh): containers and execs run as it. */
export const SANDBOX_USER = "10001:10001";
/** The port PHP listens on inside a sandbox; published on the host's 127.0.0.1 only. */
export const SANDBOX_PORT = "8080/tcp";

/** @typedef {import("./policy.d.mts").ProxySettings} ProxySettings */
/** @typedef {import("./policy.d.mts").Operation} Operation */

/** A refused call: the proxy answers 403 with this message (or `status`) and logs it. */
export class Refusal extends Error {
  /** @param {string} message @param {number} [status] */
  constructor(message, status = 403) {
    super(message);
    this.name = "Refusal";
    this.status = status;
  }
}

/** @param {string} repository */
const escapeRegExp = (repository) => repository.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * The proxy's settings from its environment: the sandbox image repository (SANDBOX_IMAGE_REPOSITORY, default
 * localhost/sitewright-sandbox, any tag of it), the sandbox network pool (SANDBOX_NETWORK_POOL, as the app's), and
 * at most ENGINE_PROXY_MAX_SANDBOXES sandbox containers at once (default 64).
 * @param {Record<string, string | undefined>} env
 * @returns {ProxySettings}
 */
export function proxySettings(env) {
  const repository = env.SANDBOX_IMAGE_REPOSITORY || "localhost/sitewright-sandbox";
  const max = Number(env.ENGINE_PROXY_MAX_SANDBOXES || 64);
  if (!Number.isInteger(max) || max < 1) throw new Error("ENGINE_PROXY_MAX_SANDBOXES must be a positive integer");
  return {
    imagePattern: new RegExp(`^${escapeRegExp(repository)}:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`),
    networkPool: parseCidr(env.SANDBOX_NETWORK_POOL || "10.213.0.0/16"),
    maxSandboxes: max,
  };
}

/**
 * `10.213.0.0/16` → its first address and prefix length; throws on anything else.
 * @param {string} cidr
 */
export function parseCidr(cidr) {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  const parts = match ? match.slice(1, 5).map(Number) : [];
  const prefix = match ? Number(match[5]) : -1;
  if (!match || parts.some((part) => part > 255) || prefix < 8 || prefix > 30) {
    throw new Refusal(`not an IPv4 range: ${cidr}`);
  }
  const value = parts.reduce((sum, part) => sum * 256 + part, 0);
  const size = 2 ** (32 - prefix);
  return { base: value - (value % size), prefix, size };
}

/** @param {string} address */
const ipv4 = (address) => parseCidr(`${address}/30`).base + (Number(address.split(".")[3]) % 4);

const ID = "[A-Za-z0-9][A-Za-z0-9_.-]{0,127}";
const QUERY_NAMES = /** @type {const} */ ({
  containerList: ["all", "filters"],
  networkList: ["filters"],
  // dockerode repeats a create's whole body in its query: nothing of it is forwarded but a container's `name`.
  containerCreate: null,
  networkCreate: null,
  remove: ["force", "v"],
  logs: ["stdout", "stderr", "follow", "tail", "timestamps"],
  none: [],
});

/**
 * The operation a request asks for, from its method and raw path (an optional `/v1.NN` version prefix is dropped),
 * or a Refusal. Per-container operations name the container; the proxy checks it is a sandbox before forwarding.
 * @param {string} method
 * @param {string} rawUrl
 * @returns {Operation}
 */
export function matchRequest(method, rawUrl) {
  const [rawPath = "", query = ""] = rawUrl.split(/\?(.*)/s);
  const path = rawPath.replace(/^\/v\d+\.\d+(?=\/)/, "");
  if (/%|\/\.\.?(\/|$)|\/\//.test(path)) throw new Refusal(`refused path ${rawPath}`);
  const params = new URLSearchParams(query);
  const route = ROUTES.find((candidate) => candidate.method === method && candidate.pattern.test(path));
  if (!route) throw new Refusal(`${method} ${path} is not a call the sandbox driver makes`);
  const allowed = QUERY_NAMES[route.query];
  for (const name of params.keys()) {
    if (allowed !== null && !allowed.includes(/** @type {never} */ (name))) {
      throw new Refusal(`${method} ${path}: the parameter ${name} is not allowed`);
    }
  }
  const match = /** @type {RegExpExecArray} */ (route.pattern.exec(path));
  return { ...route.operation(match), path, params };
}

/** @type {Array<{ method: string; pattern: RegExp; query: keyof typeof QUERY_NAMES; operation: (m: RegExpExecArray) => Omit<Operation, "path" | "params"> }>} */
const ROUTES = [
  { method: "GET", pattern: /^\/_ping$/, query: "none", operation: () => ({ kind: "ping" }) },
  { method: "HEAD", pattern: /^\/_ping$/, query: "none", operation: () => ({ kind: "ping" }) },
  {
    method: "GET",
    pattern: /^\/images\/(.+)\/json$/,
    query: "none",
    operation: (m) => ({ kind: "imageInspect", target: m[1] }),
  },
  {
    method: "POST",
    pattern: /^\/networks\/create$/,
    query: "networkCreate",
    operation: () => ({ kind: "networkCreate" }),
  },
  { method: "GET", pattern: /^\/networks$/, query: "networkList", operation: () => ({ kind: "networkList" }) },
  {
    method: "DELETE",
    pattern: new RegExp(`^/networks/(${ID})$`),
    query: "none",
    operation: (m) => ({ kind: "networkRemove", target: m[1] }),
  },
  {
    method: "POST",
    pattern: /^\/containers\/create$/,
    query: "containerCreate",
    operation: () => ({ kind: "containerCreate" }),
  },
  {
    method: "GET",
    pattern: /^\/containers\/json$/,
    query: "containerList",
    operation: () => ({ kind: "containerList" }),
  },
  ...[
    ["POST", "start", "none"],
    ["GET", "json", "none"],
    ["GET", "logs", "logs"],
    ["POST", "exec", "none"],
  ].map(([method, action, query]) => ({
    method: /** @type {string} */ (method),
    pattern: new RegExp(`^/containers/(${ID})/${action}$`),
    query: /** @type {keyof typeof QUERY_NAMES} */ (query),
    operation: (/** @type {RegExpExecArray} */ m) => ({ kind: "container", action, target: m[1] }),
  })),
  {
    method: "DELETE",
    pattern: new RegExp(`^/containers/(${ID})$`),
    query: "remove",
    operation: (m) => ({ kind: "container", action: "remove", target: m[1] }),
  },
  {
    method: "POST",
    pattern: /^\/exec\/([0-9a-f]{12,64})\/start$/,
    query: "none",
    operation: (m) => ({ kind: "execStart", target: m[1] }),
  },
  {
    method: "GET",
    pattern: /^\/exec\/([0-9a-f]{12,64})\/json$/,
    query: "none",
    operation: (m) => ({ kind: "execInspect", target: m[1] }),
  },
];

const labels = z
  .record(z.string().regex(/^sitewright\.[a-z-]{1,40}$/), z.string().max(200))
  .refine((value) => Boolean(value[LABEL_SANDBOX]), `the ${LABEL_SANDBOX} label is required`);
const sandboxName = z.string().regex(/^sitewright-[A-Za-z0-9_.-]{1,120}$/);
const networkName = z.string().regex(/^sitewright-net-[A-Za-z0-9_.-]{1,100}$/);
const tmpfsOptions = z.string().regex(/^rw,noexec,nosuid,nodev,size=\d{1,12}[kmg]?(,mode=1777)?$/);

/** @param {ProxySettings} settings */
function containerSchema(settings) {
  const hostConfig = z.strictObject({
    Privileged: z.literal(false),
    CapDrop: z.tuple([z.literal("ALL")]),
    CapAdd: z.tuple([]).optional(),
    SecurityOpt: z.tuple([z.literal("no-new-privileges")]),
    ReadonlyRootfs: z.literal(true),
    Tmpfs: z.record(z.enum(["/data", "/tmp"]), tmpfsOptions).optional(),
    Memory: z
      .number()
      .int()
      .min(16 * 1024 * 1024)
      .max(4 * 1024 ** 3),
    MemorySwap: z
      .number()
      .int()
      .min(-1)
      .max(4 * 1024 ** 3),
    NanoCpus: z.number().int().min(1).max(4_000_000_000),
    PidsLimit: z.number().int().min(8).max(1024),
    PortBindings: z.strictObject({
      [SANDBOX_PORT]: z.tuple([
        z.strictObject({ HostIp: z.literal("127.0.0.1"), HostPort: z.string().regex(/^(|[1-9]\d{3,4})$/) }),
      ]),
    }),
    Binds: z.tuple([]).optional(),
    NetworkMode: networkName,
    Sysctls: z
      .strictObject({
        "net.ipv6.conf.all.disable_ipv6": z.literal("1"),
        "net.ipv6.conf.default.disable_ipv6": z.literal("1"),
      })
      .optional(),
    RestartPolicy: z.strictObject({ Name: z.literal("no") }).optional(),
  });
  return z.strictObject({
    name: sandboxName.optional(),
    Image: z.string().regex(settings.imagePattern, "not the sandbox image"),
    User: z.literal(SANDBOX_USER),
    Env: z.array(z.string().regex(/^[A-Z_][A-Z0-9_]*=.{0,1000}$/s)).max(32),
    Labels: labels,
    ExposedPorts: z.strictObject({ [SANDBOX_PORT]: z.strictObject({}) }),
    StopTimeout: z.number().int().min(0).max(60).optional(),
    HostConfig: hostConfig,
  });
}

/**
 * @param {z.ZodType} schema
 * @param {unknown} body
 * @param {string} what
 */
function checked(schema, body, what) {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new Refusal(`${what}: ${issue?.path.join(".") || "body"}: ${issue?.message ?? "not allowed"}`);
}

/**
 * A container create the driver would make (lib/sandbox/engine.ts, `containerOptions`): our image, our labels, the
 * sandbox user, every capability dropped, no-new-privileges, read-only, no bind or other mount, its port on
 * 127.0.0.1, on a sandbox network, bounded memory, CPU and pids. Returns the body to forward.
 * @param {unknown} body
 * @param {string | null} name the `name` query parameter
 * @param {ProxySettings} settings
 */
export function checkContainerCreate(body, name, settings) {
  const value = checked(containerSchema(settings), body, "container create");
  if (name !== null) checked(sandboxName, name, "container name");
  if (value.HostConfig.MemorySwap !== value.HostConfig.Memory) {
    throw new Refusal("container create: MemorySwap must equal Memory (no swap)");
  }
  return value;
}

/**
 * A sandbox's own bridge network on one range inside the sandbox pool, its host side named for the firewall's
 * IPv6 rules (`swsbx…`), labelled as ours. Returns the body to forward.
 * @param {unknown} body
 * @param {ProxySettings} settings
 */
export function checkNetworkCreate(body, settings) {
  const value = checked(
    z.strictObject({
      Name: networkName,
      Driver: z.literal("bridge"),
      Internal: z.boolean(),
      CheckDuplicate: z.boolean().optional(),
      EnableIPv6: z.literal(false),
      Labels: labels,
      Options: z.strictObject({ "com.docker.network.bridge.name": z.string().regex(/^swsbx[0-9a-f]{1,10}$/) }),
      IPAM: z.strictObject({
        Driver: z.literal("default"),
        Config: z.tuple([z.strictObject({ Subnet: z.string(), Gateway: z.string() })]),
      }),
    }),
    body,
    "network create",
  );
  const { Subnet, Gateway } = value.IPAM.Config[0];
  const subnet = parseCidr(Subnet);
  const pool = settings.networkPool;
  if (subnet.prefix < pool.prefix || subnet.base - (subnet.base % pool.size) !== pool.base) {
    throw new Refusal(`network create: ${Subnet} is outside the sandbox network pool`);
  }
  const gateway = ipv4(Gateway);
  if (gateway <= subnet.base || gateway >= subnet.base + subnet.size - 1) {
    throw new Refusal(`network create: the gateway ${Gateway} is not inside ${Subnet}`);
  }
  return value;
}

/**
 * A command run inside a sandbox as its unprivileged user, output collected: no stdin, no terminal, no other user,
 * no privilege. Returns the body to forward.
 * @param {unknown} body
 */
export function checkExecCreate(body) {
  return checked(
    z.strictObject({
      Cmd: z
        .array(z.string().max(64 * 1024))
        .min(1)
        .max(64),
      AttachStdout: z.boolean(),
      AttachStderr: z.boolean(),
      AttachStdin: z.literal(false).optional(),
      Tty: z.literal(false).optional(),
      Privileged: z.literal(false).optional(),
      User: z.literal(SANDBOX_USER),
    }),
    body,
    "exec create",
  );
}

/**
 * Starting an exec the proxy created: attached, no terminal, no stdin (dockerode sends its own options as the body).
 * @param {unknown} body
 */
export function checkExecStart(body) {
  checked(
    z.strictObject({
      Detach: z.literal(false).optional(),
      Tty: z.literal(false).optional(),
      hijack: z.boolean().optional(),
      stdin: z.literal(false).optional(),
    }),
    body ?? {},
    "exec start",
  );
  return { Detach: false, Tty: false };
}

/**
 * A list's `filters`, which must ask for sandboxes only (the label), so the app never sees the engine's other
 * containers or networks. Returns the query to forward.
 * @param {URLSearchParams} params
 */
export function sandboxListQuery(params) {
  let filters;
  try {
    filters = JSON.parse(params.get("filters") ?? "null");
  } catch {
    throw new Refusal("list: filters is not JSON");
  }
  const value = checked(
    z.strictObject({ label: z.array(z.string().regex(/^sitewright\.[a-z-]{1,40}(=[A-Za-z0-9_.:-]{1,200})?$/)) }),
    filters,
    "list filters",
  );
  if (!value.label.includes(LABEL_SANDBOX)) throw new Refusal(`list: filters must include the ${LABEL_SANDBOX} label`);
  const query = new URLSearchParams({ filters: JSON.stringify(value) });
  if (params.get("all") === "true" || params.get("all") === "1") query.set("all", "true");
  return query;
}

/**
 * The query of a remove or a logs request, with only the values the driver uses: a logs request never follows
 * (it would hold the connection).
 * @param {"remove" | "logs"} action
 * @param {URLSearchParams} params
 */
export function containerQuery(action, params) {
  const query = new URLSearchParams();
  for (const [name, value] of params) {
    if (!/^(true|false|1|0|\d{1,6})$/.test(value)) throw new Refusal(`${action}: ${name}=${value} is not allowed`);
    if (name === "follow" && !/^(false|0)$/.test(value)) throw new Refusal("logs: follow is not allowed");
    query.set(name, value);
  }
  return query;
}
