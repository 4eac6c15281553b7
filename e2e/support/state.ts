/**
 * What global setup started, for the specs (written to a file: specs run in other processes). Each Playwright config
 * has its own run folder (`.cache/e2e/<config>/`: the state, the app's mail and its log), so two configs running at
 * once in one checkout share nothing: `npm test` runs the Kubernetes journey beside the end-to-end lane's other
 * configs, and with one state file for all, the journey's global setup pointed the main run's specs at its own app
 * and database, which its teardown then dropped.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

export type E2eState = {
  appUrl: string;
  databaseUrl: string;
  /** Where the SMTP sink writes each mail the app sends, as JSON (test/smtp-sink.ts). */
  mailDir: string;
  site: {
    url: string;
    restUrl: string;
    adminUrl: string;
    adminUser: string;
    adminPassword: string;
    wpPath: string;
    caPath: string;
  };
};

const root = path.resolve(import.meta.dirname, "../..");

/** The environment variable by which global setup tells the spec workers (its children) where its state is. */
export const STATE_FILE_VARIABLE = "SITEWRIGHT_E2E_STATE";

/**
 * The run folder of a Playwright config, named after its file: `playwright.config.ts` → `.cache/e2e/main/`,
 * `playwright.kubernetes.config.ts` → `.cache/e2e/kubernetes/`. Without a config file (a script that runs global
 * setup itself, e2e/readme-screenshot.ts), `.cache/e2e/<name>/`.
 */
export function e2eRunPaths(configFileOrName: string) {
  const base = path.basename(configFileOrName);
  const name = /\.ts$/.test(base) ? base.replace(/^playwright\.?/, "").replace(/\.?config\.ts$/, "") || "main" : base;
  const dir = path.join(root, ".cache", "e2e", name);
  return {
    dir,
    stateFile: path.join(dir, "state.json"),
    mailDir: path.join(dir, "mail"),
    appLog: path.join(dir, "app.log"),
  };
}

export function e2eState(): E2eState {
  const file = process.env[STATE_FILE_VARIABLE];
  if (!file) {
    throw new Error(
      `${STATE_FILE_VARIABLE} is not set: run the specs with \`npx playwright test\` (its global setup sets it)`,
    );
  }
  return JSON.parse(readFileSync(file, "utf8")) as E2eState;
}
