/** What global setup started, for the specs (written to a file: specs run in another process). */
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

export const STATE_FILE = path.resolve(import.meta.dirname, "../../.cache/e2e-state.json");

export function e2eState(): E2eState {
  return JSON.parse(readFileSync(STATE_FILE, "utf8")) as E2eState;
}
