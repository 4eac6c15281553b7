/**
 * The Playwright configs share nothing that one run writes and another reads: `npm test` runs the Kubernetes journey
 * (playwright.kubernetes.config.ts) beside the end-to-end lane's other configs in one checkout. When every config's
 * global setup wrote one `.cache/e2e-state.json`, the journey's setup pointed the main run's specs at its own app and
 * database, and its teardown dropped that database under them (CI of 1d75842: "database … does not exist").
 * And waits scale with the machine (e2e/support/waits.ts).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type E2eState, e2eRunPaths, e2eState, STATE_FILE_VARIABLE } from "../e2e/support/state";
import { machineSlowdown } from "../e2e/support/waits";

const root = path.resolve(import.meta.dirname, "..");
const configFiles = readdirSync(root).filter((name) => /^playwright\..*config\.ts$/.test(name));

type LoadedConfig = { outputDir?: string; reporter?: unknown };

/** Each config as Playwright loads it (each sets its own environment variables when loaded: put back after). */
async function loadConfigs() {
  const saved = { ...process.env };
  try {
    const loaded: Record<string, LoadedConfig> = {};
    for (const file of configFiles) {
      loaded[file] = (await import(path.join(root, file))).default as LoadedConfig;
    }
    return loaded;
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

const jsonReport = (config: LoadedConfig) =>
  (config.reporter as [string, { outputFile?: string }?][]).find(([name]) => name === "json")?.[1]?.outputFile;

const distinct = (values: unknown[]) => new Set(values).size === values.length;

describe("the Playwright configs", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("are the five npm test runs, each with its own run folder, output folder and report", async () => {
    expect(configFiles.sort()).toEqual([
      "playwright.config.ts",
      "playwright.elementor.config.ts",
      "playwright.kubernetes.config.ts",
      "playwright.sandbox.config.ts",
      "playwright.wp71.config.ts",
    ]);
    const configs = await loadConfigs();
    const runs = configFiles.map((file) => e2eRunPaths(path.join(root, file)));
    for (const key of ["dir", "stateFile", "mailDir", "appLog"] as const) {
      expect(distinct(runs.map((run) => run[key])), key).toBe(true);
    }
    expect(runs.map((run) => path.relative(root, run.dir))).toEqual([
      ".cache/e2e/main",
      ".cache/e2e/elementor",
      ".cache/e2e/kubernetes",
      ".cache/e2e/sandbox",
      ".cache/e2e/wp71",
    ]);
    for (const run of runs) {
      for (const inside of [run.stateFile, run.mailDir, run.appLog]) expect(path.dirname(inside)).toBe(run.dir);
    }
    expect(distinct(configFiles.map((file) => configs[file]?.outputDir))).toBe(true);
    expect(distinct(configFiles.map((file) => jsonReport(configs[file]!)))).toBe(true);
    expect(configFiles.map((file) => jsonReport(configs[file]!)).every(Boolean)).toBe(true);
  });

  it("let a spec read its own run's state while another config's setup writes its own", () => {
    const scratch = path.join(os.tmpdir(), `sw-e2e-configs-${process.pid}`);
    const write = (name: string, appUrl: string) => {
      const file = path.join(scratch, name, "state.json");
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ appUrl, databaseUrl: `postgres://x/${name}` } as Partial<E2eState>));
      return file;
    };
    const mine = write("main", "https://localhost:1111");
    vi.stubEnv(STATE_FILE_VARIABLE, mine);
    // Another config's global setup, in another process, writes its state afterwards: this run still reads its own.
    write("kubernetes", "https://localhost:2222");
    expect(e2eState().appUrl).toBe("https://localhost:1111");
    expect(e2eState().databaseUrl).toBe("postgres://x/main");
  });

  it("refuse to guess a state when no global setup said where it is", () => {
    vi.stubEnv(STATE_FILE_VARIABLE, "");
    expect(() => e2eState()).toThrow(/SITEWRIGHT_E2E_STATE is not set/);
  });
});

describe("waits that scale with the machine", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("are a quiet machine's when the load is below the cores, and grow with it up to four times", () => {
    const cores = os.cpus().length;
    vi.stubEnv("SITEWRIGHT_E2E_MIN_SLOWDOWN", "");
    vi.spyOn(os, "loadavg").mockReturnValue([cores / 2, cores / 2, 0]);
    expect(machineSlowdown()).toBe(1);
    vi.spyOn(os, "loadavg").mockReturnValue([cores * 3, cores, 0]);
    expect(machineSlowdown()).toBe(3);
    vi.spyOn(os, "loadavg").mockReturnValue([cores * 9, cores * 9, 0]);
    expect(machineSlowdown()).toBe(4);
  });

  it("count the five minutes' load when the last minute's has not caught up, and keep the lane's floor", () => {
    const cores = os.cpus().length;
    vi.stubEnv("SITEWRIGHT_E2E_MIN_SLOWDOWN", "");
    vi.spyOn(os, "loadavg").mockReturnValue([cores / 2, cores * 2.5, 0]);
    expect(machineSlowdown()).toBe(2.5);
    vi.stubEnv("SITEWRIGHT_E2E_MIN_SLOWDOWN", "2");
    vi.spyOn(os, "loadavg").mockReturnValue([0, 0, 0]);
    expect(machineSlowdown()).toBe(2);
  });
});

describe("the specs' own waits", () => {
  const sources = readdirSync(path.join(root, "e2e"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => ({ name, text: readFileSync(path.join(root, "e2e", name), "utf8") }));

  it("scale too: no spec gives itself a fixed time-out, which a busy machine's default can outgrow", () => {
    // accessibility.spec's fixed 180 s was shorter than the default on a machine at three times its cores (270 s).
    const fixed = sources.flatMap(({ name, text }) =>
      [...text.matchAll(/test\.setTimeout\(\s*\d|timeout:\s*\d+_?\d{3}\b/g)]
        .map((match) => ({ name, match: match[0], value: Number(match[0].replace(/\D/g, "")) }))
        .filter(({ match, value }) => match.startsWith("test.") || value >= 10_000)
        .map(({ name, match }) => `${name}: ${match}`),
    );
    expect(fixed).toEqual([]);
    expect(sources.length).toBeGreaterThan(25);
  });
});
