import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env";

describe("configuration", () => {
  it("treats empty strings as unset and fills development defaults", () => {
    const env = parseEnv({ DATABASE_URL: "", SESSION_SECRET: "", PORT: "" });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.PORT).toBe(3000);
    expect(env.SESSION_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(env.ENCRYPTION_KEY).toMatch(/^[0-9a-f]{64}$/);
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
    });
    expect(env.APP_URL).toBe("https://app.example.com");
  });

  it("parses lists and numbers", () => {
    const env = parseEnv({ SITE_HOST_ALLOWLIST: " localhost, wp.test ,", AGENT_MAX_STEPS: "7", AGENT_OPERATIONS: "a,b" });
    expect(env.SITE_HOST_ALLOWLIST).toEqual(["localhost", "wp.test"]);
    expect(env.AGENT_MAX_STEPS).toBe(7);
    expect(env.AGENT_OPERATIONS).toEqual(["a", "b"]);
  });
});

describe("configuration defaults", () => {
  it("runs defaults through the same parsing as given values", () => {
    expect(parseEnv({ SITE_HOST_ALLOWLIST: "" }).SITE_HOST_ALLOWLIST).toEqual([]);
    expect(parseEnv({}).AUTH_RATE_LIMIT).toBe(10);
  });
});
