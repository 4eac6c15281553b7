/**
 * The one place that reads process.env. Every variable of the contract's Configuration table is validated
 * here; an empty string means unset. `.env` is loaded once, before the first read.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { processState } from "@/lib/process-state";

const emptyToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(emptyToUndefined, schema.optional());
const withDefault = <T extends z.ZodType>(schema: T, fallback: z.input<T>) =>
  z.preprocess(emptyToUndefined, schema.prefault(fallback as never)); // prefault: the fallback goes through the schema too
const positiveInt = z.coerce.number().int().positive();
const csv = z.string().transform((value) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean),
);

export const envSchema = z
  .object({
    NODE_ENV: withDefault(z.enum(["development", "production", "test"]), "development"),
    PORT: withDefault(z.coerce.number().int().min(1).max(65535), 3000),
    APP_URL: optional(z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, ""))),
    DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")),
    SESSION_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
    ENCRYPTION_KEY: optional(z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (32 bytes)")),
    /** Earlier keys, comma-separated: still open what they sealed, never seal (docs/deployment.md, "Key rotation"). */
    ENCRYPTION_KEY_PREVIOUS: withDefault(
      csv.pipe(z.array(z.string().regex(/^[0-9a-fA-F]{64}$/, "each must be 64 hex characters (32 bytes)"))),
      "",
    ),
    /** Earlier session secrets, comma-separated: their cookies still open until they expire; new ones never use them. */
    SESSION_SECRET_PREVIOUS: withDefault(
      csv.pipe(z.array(z.string().min(32, "each must be at least 32 characters"))),
      "",
    ),
    OPENAI_API_KEY: optional(z.string()),
    OPENAI_BASE_URL: optional(z.url()),
    AGENT_MODEL: withDefault(z.string(), "gpt-4.1-mini"),
    AGENT_OPERATIONS: optional(csv),
    /** "true" when the model can see images: the agent may look at an image before writing its alt text (docs/agent.md). */
    AGENT_VISION: withDefault(
      z.enum(["true", "false"]).transform((value) => value === "true"),
      "false",
    ),
    AGENT_MAX_STEPS: withDefault(positiveInt, 12),
    AGENT_MAX_TOOL_CALLS: withDefault(positiveInt, 20),
    AGENT_MAX_TOKENS: withDefault(positiveInt, 200_000),
    BULK_JOB_MAX_ITEMS: withDefault(positiveInt, 500),
    BULK_JOB_MAX_TOKENS: withDefault(positiveInt, 400_000),
    BULK_JOB_MAX_MINUTES: withDefault(positiveInt, 60),
    BULK_JOBS_PER_USER: withDefault(positiveInt, 2),
    AGENT_TIMEOUT_MS: withDefault(positiveInt, 120_000),
    SANDBOX_DRIVER: optional(z.enum(["docker", "kubernetes"])),
    DOCKER_HOST: optional(z.string()),
    /** The Kubernetes namespace sandbox pods run in (SANDBOX_DRIVER=kubernetes). */
    SANDBOX_K8S_NAMESPACE: withDefault(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/), "sitewright-sandboxes"),
    /** A RuntimeClass for sandbox pods (gVisor, Kata) where the cluster has one. */
    SANDBOX_K8S_RUNTIME_CLASS: optional(z.string()),
    /** The kubeconfig file the Kubernetes driver reads (unset: in-cluster, then ~/.kube/config). */
    KUBECONFIG: optional(z.string()),
    SANDBOX_IMAGE: optional(z.string()),
    SANDBOX_POOL_SIZE: withDefault(z.coerce.number().int().min(0), 2),
    SANDBOX_MAX: withDefault(positiveInt, 20),
    SANDBOX_MAX_PER_USER: withDefault(positiveInt, 3),
    SANDBOX_TTL_MINUTES: withDefault(positiveInt, 60),
    /** The IPv4 range sandbox networks take their /28 subnets from; the host firewall drops what they start. */
    SANDBOX_NETWORK_POOL: withDefault(z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/), "10.213.0.0/16"),
    /** "false" lets sandboxes run when the network check finds them not isolated (development only). */
    SANDBOX_REQUIRE_ISOLATION: withDefault(
      z.enum(["true", "false"]).transform((value) => value === "true"),
      "true",
    ),
    SITE_HOST_ALLOWLIST: withDefault(csv, ""),
    SITEWRIGHT_CACHE: withDefault(z.string(), "/var/cache/sitewright"),
    AUTH_RATE_LIMIT: withDefault(positiveInt, 10),
    PASSWORD_HASH_CONCURRENCY: optional(positiveInt),
    REDEEM_RATE_LIMIT: withDefault(positiveInt, 20),
    /** The largest file the owner may attach in the chat, in bytes (docs/media.md). */
    UPLOAD_MAX_BYTES: withDefault(positiveInt, 10 * 1024 * 1024),
    /** Calls per minute one MCP client may make to `/mcp` (docs/mcp.md). */
    MCP_RATE_LIMIT: withDefault(positiveInt, 120),
    /** Read by server.mjs (lib/http/forwarded.mjs), which decides client addresses; validated here as well. */
    TRUSTED_PROXY_HOPS: withDefault(z.coerce.number().int().min(0).max(10), 0),
    /** Outgoing mail (password reset, email verification): smtp:// or smtps://, credentials in the URL (docs/operations.md). */
    SMTP_URL: optional(z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" })),
    /** The From of every mail, e.g. `Sitewright <no-reply@example.com>`; default no-reply@ APP_URL's host. */
    MAIL_FROM: optional(z.string().trim().min(3).max(320)),
    /** The audit chain's Ed25519 signing key: its 32-byte seed as 64 hex; unset, derived from ENCRYPTION_KEY (docs/teams.md). */
    AUDIT_SIGNING_KEY: optional(
      z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (a 32-byte Ed25519 seed)"),
    ),
    /** A signed checkpoint is added to a site's audit chain after this many entries (and at every export). */
    AUDIT_CHECKPOINT_EVERY: withDefault(positiveInt, 100),
    LOG_LEVEL: withDefault(z.enum(["debug", "info", "warn", "error", "silent"]), "info"),
    /** "true" lets production run with everything in memory (lost at every restart); for demos only. */
    ALLOW_IN_MEMORY_STORE: withDefault(
      z.enum(["true", "false"]).transform((value) => value === "true"),
      "false",
    ),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV !== "production") return;
    for (const name of ["SESSION_SECRET", "ENCRYPTION_KEY", "APP_URL"] as const) {
      if (!env[name]) ctx.addIssue({ code: "custom", path: [name], message: "is required in production" });
    }
    if (!env.DATABASE_URL && !env.ALLOW_IN_MEMORY_STORE) {
      ctx.addIssue({
        code: "custom",
        path: ["DATABASE_URL"],
        message:
          "is required in production: without it every account, site and change lives in memory and is lost at the next restart (set ALLOW_IN_MEMORY_STORE=true to run in memory anyway, for a demo)",
      });
    }
  });

export type Env = z.infer<typeof envSchema> & {
  SESSION_SECRET: string;
  ENCRYPTION_KEY: string;
  APP_URL: string;
};

export class EnvError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "EnvError";
  }
}

/** Where development secrets are kept: in the project, outside git (.gitignore), readable by the owner only. */
export const DEV_SECRETS_FILE = ".dev-secrets.json";

/** In development, a site on this machine can be paired without configuring anything (docs/operations.md). */
export const DEVELOPMENT_LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "::1"];

type DevSecrets = { SESSION_SECRET: string; ENCRYPTION_KEY: string };
const devSecretsSchema = z.object({
  SESSION_SECRET: z.string().min(32),
  ENCRYPTION_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/),
});

/**
 * The development secrets: read from `file`, or generated once and written there (mode 0600) so that every part
 * of the app (Next.js loads this module once per bundle), every process started from this folder and every
 * restart use the same ones. Creation is exclusive, so two processes starting at once still agree.
 */
export function developmentSecrets(file: string): DevSecrets {
  const existing = readDevSecrets(file);
  if (existing) return existing;
  const fresh: DevSecrets = {
    SESSION_SECRET: randomBytes(32).toString("base64url"),
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  };
  mkdirSync(path.dirname(file), { recursive: true });
  const text = `${JSON.stringify(fresh, null, 2)}\n`;
  try {
    writeFileSync(file, text, { mode: 0o600, flag: "wx" });
    return fresh;
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
  // Another process created it first: use theirs, unless it is unreadable (then replace it atomically).
  const theirs = readDevSecrets(file);
  if (theirs) return theirs;
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
  return fresh;
}

function readDevSecrets(file: string): DevSecrets | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const result = devSecretsSchema.safeParse(parsed);
  if (!result.success) return undefined;
  chmodSync(file, 0o600);
  return result.data;
}

export type ParseOptions = {
  /** The development secrets when they are not set (default: `.dev-secrets.json` in the working directory). */
  devSecrets?: () => DevSecrets;
};

const defaultDevSecrets = () =>
  processState("env.dev-secrets", () => developmentSecrets(path.resolve(process.cwd(), DEV_SECRETS_FILE)));

/** Parses an environment; throws EnvError naming each wrong variable. Exported for tests. */
export function parseEnv(source: Record<string, string | undefined>, options: ParseOptions = {}): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    throw new EnvError(result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const env = result.data;
  // Production requires both (superRefine above); elsewhere they come from the local secrets file.
  const secrets = env.SESSION_SECRET && env.ENCRYPTION_KEY ? undefined : (options.devSecrets ?? defaultDevSecrets)();
  const allowlistGiven = emptyToUndefined(source.SITE_HOST_ALLOWLIST) !== undefined;
  return {
    ...env,
    SESSION_SECRET: env.SESSION_SECRET ?? secrets!.SESSION_SECRET,
    ENCRYPTION_KEY: env.ENCRYPTION_KEY ?? secrets!.ENCRYPTION_KEY,
    APP_URL: env.APP_URL ?? `http://localhost:${env.PORT}`,
    SITE_HOST_ALLOWLIST:
      !allowlistGiven && env.NODE_ENV === "development" ? DEVELOPMENT_LOOPBACK_HOSTS : env.SITE_HOST_ALLOWLIST,
  };
}

let cached: Env | undefined;
let dotenvLoaded = false;

function loadDotenv() {
  if (dotenvLoaded) return;
  dotenvLoaded = true;
  if (process.env.NODE_ENV === "test") return; // tests set their own environment
  try {
    process.loadEnvFile?.(".env");
  } catch {
    // no .env file: the environment alone is fine
  }
}

export function env(): Env {
  if (!cached) {
    loadDotenv();
    cached = parseEnv(process.env);
  }
  return cached;
}

/** Tests change the environment between cases; production never calls this. */
export function resetEnvForTests(overrides?: Record<string, string | undefined>) {
  if (overrides)
    for (const [key, value] of Object.entries(overrides)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  cached = undefined;
}
