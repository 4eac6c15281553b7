import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { DEVELOPMENT_LOOPBACK_HOSTS, developmentSecrets, EnvError, parseEnv as parseWith } from "./env";

const dir = mkdtempSync(path.join(tmpdir(), "sitewright-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixedSecrets = { SESSION_SECRET: "s".repeat(40), ENCRYPTION_KEY: "cd".repeat(32) };
/** These cases never touch the project's own secrets file. */
const parseEnv = (source: Record<string, string | undefined>) => parseWith(source, { devSecrets: () => fixedSecrets });

describe("configuration", () => {
  it("treats empty strings as unset and fills development defaults", () => {
    const env = parseEnv({ DATABASE_URL: "", SESSION_SECRET: "", PORT: "" });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.PORT).toBe(3000);
    expect(env.SESSION_SECRET).toBe(fixedSecrets.SESSION_SECRET);
    expect(env.ENCRYPTION_KEY).toBe(fixedSecrets.ENCRYPTION_KEY);
    expect(env.APP_URL).toBe("http://localhost:3000");
  });

  it("names each wrong variable in one clear start-up error", () => {
    try {
      parseEnv({ PORT: "abc", ENCRYPTION_KEY: "short", SESSION_SECRET: "tiny" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(EnvError);
      const message = (error as Error).message;
      expect(message).toContain("PORT");
      expect(message).toContain("ENCRYPTION_KEY: must be 64 hex characters");
      expect(message).toContain("SESSION_SECRET: must be at least 32 characters");
    }
  });

  it("requires secrets and the public URL in production", () => {
    expect(() => parseEnv({ NODE_ENV: "production" })).toThrow(/SESSION_SECRET: is required in production/);
    const env = parseEnv({
      NODE_ENV: "production",
      SESSION_SECRET: "x".repeat(32),
      ENCRYPTION_KEY: "a".repeat(64),
      APP_URL: "https://app.example.com/",
      DATABASE_URL: "postgres://app@db.internal/sitewright",
    });
    expect(env.APP_URL).toBe("https://app.example.com");
  });

  it("refuses to start production in memory (lost at restart) unless told to", () => {
    const production = {
      NODE_ENV: "production",
      SESSION_SECRET: "x".repeat(32),
      ENCRYPTION_KEY: "a".repeat(64),
      APP_URL: "https://app.example.com",
    };
    expect(() => parseEnv(production)).toThrow(/DATABASE_URL: is required in production/);
    expect(parseEnv({ ...production, ALLOW_IN_MEMORY_STORE: "true" }).DATABASE_URL).toBeUndefined();
  });

  it("parses lists and numbers", () => {
    const env = parseEnv({
      SITE_HOST_ALLOWLIST: " localhost, wp.test ,",
      AGENT_MAX_STEPS: "7",
      AGENT_OPERATIONS: "a,b",
    });
    expect(env.SITE_HOST_ALLOWLIST).toEqual(["localhost", "wp.test"]);
    expect(env.AGENT_MAX_STEPS).toBe(7);
    expect(env.AGENT_OPERATIONS).toEqual(["a", "b"]);
  });
});

describe("mail configuration", () => {
  it("takes smtp:// and smtps:// URLs, refuses anything else by name, and leaves mail off when empty", () => {
    expect(parseEnv({ SMTP_URL: "smtp://user:p%40ss@mail.example:587" }).SMTP_URL).toBe(
      "smtp://user:p%40ss@mail.example:587",
    );
    expect(parseEnv({ SMTP_URL: "smtps://mail.example" }).SMTP_URL).toBe("smtps://mail.example");
    expect(parseEnv({ SMTP_URL: "", MAIL_FROM: "" })).toMatchObject({ SMTP_URL: undefined, MAIL_FROM: undefined });
    for (const wrong of ["https://mail.example", "mail.example:587", "smtp//x"]) {
      expect(() => parseEnv({ SMTP_URL: wrong })).toThrow(/SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/);
    }
  });
});

describe("configuration defaults", () => {
  it("runs defaults through the same parsing as given values", () => {
    expect(parseEnv({ NODE_ENV: "test", SITE_HOST_ALLOWLIST: "" }).SITE_HOST_ALLOWLIST).toEqual([]);
    expect(parseEnv({}).AUTH_RATE_LIMIT).toBe(10);
  });
});

describe("development secrets", () => {
  const secretsIn = (file: string) =>
    promisify(execFile)(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        "import('./lib/env.ts').then((m) => process.stdout.write(JSON.stringify(m.developmentSecrets(process.argv[1]))))",
        file,
      ],
      { cwd: path.resolve(import.meta.dirname, "..") },
    ).then(({ stdout }) => JSON.parse(stdout) as Record<string, string>);

  it("are generated once, kept owner-only on disk, and shared by processes started at the same moment", async () => {
    const file = path.join(dir, "race", ".dev-secrets.json");
    const answers = await Promise.all([secretsIn(file), secretsIn(file), secretsIn(file)]);
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]!.SESSION_SECRET!.length).toBeGreaterThanOrEqual(32);
    expect(answers[0]!.ENCRYPTION_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A restart reads the same ones back.
    expect(developmentSecrets(file)).toEqual(answers[0]);
  }, 30_000);

  it("fill only what is unset, and never stand in for production's required values", () => {
    const file = path.join(dir, "partial.json");
    const own = "o".repeat(40);
    const env = parseWith({ SESSION_SECRET: own }, { devSecrets: () => developmentSecrets(file) });
    expect(env.SESSION_SECRET).toBe(own);
    expect(env.ENCRYPTION_KEY).toBe(JSON.parse(readFileSync(file, "utf8")).ENCRYPTION_KEY);
    expect(() => parseWith({ NODE_ENV: "production" }, { devSecrets: () => developmentSecrets(file) })).toThrow(
      /ENCRYPTION_KEY: is required in production/,
    );
  });

  it("replace a damaged file instead of failing to start", () => {
    const file = path.join(dir, "damaged.json");
    writeFileSync(file, "{ not json", { mode: 0o644 });
    const secrets = developmentSecrets(file);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(secrets);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("pairing a site on this machine", () => {
  it("allows loopback hosts by default in development only, and an explicit list replaces the default", () => {
    expect(parseEnv({ NODE_ENV: "development" }).SITE_HOST_ALLOWLIST).toEqual(DEVELOPMENT_LOOPBACK_HOSTS);
    expect(parseEnv({}).SITE_HOST_ALLOWLIST).toEqual(DEVELOPMENT_LOOPBACK_HOSTS);
    expect(parseEnv({ NODE_ENV: "test" }).SITE_HOST_ALLOWLIST).toEqual([]);
    expect(
      parseEnv({
        NODE_ENV: "production",
        APP_URL: "https://a.example",
        DATABASE_URL: "postgres://db/x",
        ...fixedSecrets,
      }).SITE_HOST_ALLOWLIST,
    ).toEqual([]);
    expect(parseEnv({ NODE_ENV: "development", SITE_HOST_ALLOWLIST: "wp.test" }).SITE_HOST_ALLOWLIST).toEqual([
      "wp.test",
    ]);
  });
});
