/**
 * What most specs do before their story: the spec process reads and writes the app's database, an owner signs up
 * in the page, and their site is connected as pairing leaves it (pairing itself runs through wp-admin in
 * pairing.spec.ts and the journey). Also the owner's own signed access to the local WordPress, and the front end
 * as a visitor's browser gets it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { insertSiteRow } from "../../test/agent-site";
import { openDatabase, setDatabaseForTests, type DbHandle } from "../../lib/db";
import { createSiteClient, type SignedSiteClient } from "../../lib/sites/client";
import { e2eState } from "./state";
import { scaled } from "./waits";

export const PASSWORD = "a long and unusual passphrase 7";
export const ALL_SCOPES = "site:read,content:read,content:write,media:write,design:write,settings:write";

/** Opens the app's database in this spec process for the file's tests (fixtures write site rows directly). */
export function useAppDatabase() {
  let handle: DbHandle | undefined;
  test.beforeAll(async () => {
    handle = await openDatabase(e2eState().databaseUrl);
    await setDatabaseForTests(handle);
  });
  test.afterAll(async () => {
    await setDatabaseForTests(undefined);
    await handle?.close();
  });
}

/** Signs a new account up through the page; returns its user id. */
export async function signUp(page: Page, prefix: string): Promise<string> {
  const { appUrl } = e2eState();
  await page.goto(`${appUrl}/signup`);
  await page.getByLabel("Email").fill(`${prefix}${Date.now()}@example.com`);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  // The password is hashed with scrypt on the server: tens of seconds when the machine's cores are all busy.
  await expect(page.getByTestId("signed-in-as")).toBeVisible({ timeout: scaled(60_000) });
  return (await (await page.request.get(`${appUrl}/auth/me`)).json()).user.id as string;
}

/** Plugin credentials made with the plugin's CLI, and the signed client that uses them. */
export function siteCredentials(scopes = "site:read,content:read,content:write") {
  const { site } = e2eState();
  const { token, secret } = JSON.parse(
    execFileSync(
      "php",
      [
        path.resolve("plugin/bin/sitewright-cli.php"),
        `--wp=${site.wpPath}`,
        "create-credentials",
        `--scopes=${scopes}`,
      ],
      { encoding: "utf8" },
    ),
  ) as { token: string; secret: string };
  const client: SignedSiteClient = createSiteClient(
    { baseUrl: site.url, restUrl: site.restUrl, token, secret },
    { ca: readFileSync(site.caPath, "utf8"), allowlist: ["localhost"] },
  );
  return { token, secret, client };
}

/** The user's connected site: a row as pairing leaves it, with what the plugin's /info reports. */
export async function connectSite(userId: string, scopes?: string) {
  const { site } = e2eState();
  const { token, secret, client } = siteCredentials(scopes);
  const info = (await client.get<Record<string, unknown>>("/sitewright/v1/info")).data;
  const siteId = await insertSiteRow({ userId, url: site.url, token, secret, info });
  return { siteId, admin: client, info };
}

/** A page of the WordPress front end, as a visitor's browser gets it. */
export function frontEnd(url: string): Promise<string> {
  const ca = readFileSync(e2eState().site.caPath, "utf8");
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve(body));
      })
      .on("error", reject);
  });
}

/**
 * Waits until a frame of the page shows `text`, reloading the page when the frame failed to load. Only a test
 * needs this: its browser runs on the host where sandboxes start, and a new sandbox's bridge gains its addresses a
 * moment later, which makes Chromium abort loads then in flight (ERR_NETWORK_CHANGED). An owner's browser is on
 * another machine and never sees the host's interfaces change.
 */
export async function expectFrameToShow(page: Page, frameTitle: string, text: string) {
  await expect(async () => {
    const frame = page.frameLocator(`iframe[title="${frameTitle}"]`);
    try {
      await expect(frame.getByText(text)).toBeVisible({ timeout: 5_000 });
    } catch (error) {
      await page.reload();
      throw error;
    }
  }).toPass({ timeout: scaled(45_000) });
}
