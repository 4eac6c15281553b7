/**
 * The README's first command, as a new user runs it: `npm run dev` with no app configuration at all, then the whole
 * first visit in Chromium: sign up in the page, call the JSON routes from that same browser, pair a WordPress site
 * on this machine with the code the real plugin's admin screen redeems, and confirm. Then restarts with other
 * environment variables: the development secrets stay the same and no page reloads itself in a loop.
 *
 * Given to the dev server besides nothing: NODE_EXTRA_CA_CERTS (not app configuration: Node must trust the local
 * WordPress's test CA, as a developer's machine trusts its own) and PORT (this machine is shared by several
 * engineers' runs, so 3000 may be taken; `npm run dev` honours PORT as the README says).
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect as baseExpect, type Page, test } from "@playwright/test";
import { startLocalSite, type LocalSite } from "../scripts/site-local";
import { logInToWordPress } from "./support/wp-login";
import { type AppProcess, ROOT, startDevServer } from "./support/app-process";

test.describe.configure({ mode: "serial" });
// The dev server compiles each page on its first request: on two shared cores that can take a minute.
const expect = baseExpect.configure({ timeout: 180_000 });

const password = "a long and unusual passphrase 7";
const SECRETS = path.join(ROOT, ".dev-secrets.json");
let site: LocalSite;
let dev: AppProcess | undefined;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  // This site lets its plugin call an http:// service on localhost, as `npm run site:local -- --allow-http-service`.
  site = await startLocalSite({ title: "Sitewright Dev", allowHttpService: true });
});

test.afterAll(async () => {
  await dev?.stop();
  await site?.stop();
});

/** Every answer the browser got: a 5xx for anything the page or the user did wrong fails the test. */
function watchServerErrors(page: Page, allowed: (url: string, method: string) => boolean) {
  const errors: string[] = [];
  page.on("response", (response) => {
    const request = response.request();
    if (response.status() >= 500 && !allowed(response.url(), request.method())) {
      errors.push(`${request.method()} ${response.url()} → ${response.status()}`);
    }
  });
  return errors;
}

const inPage = (page: Page, method: string, url: string, body?: unknown) =>
  page.evaluate(
    async ({ method, url, body }) => {
      const response = await fetch(url, {
        method,
        headers: body === undefined ? {} : { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : undefined };
    },
    { method, url, body },
  );

test("npm run dev with nothing configured: sign up, the JSON routes, pair a local site and confirm", async ({
  browser,
}) => {
  test.setTimeout(600_000);
  dev = await startDevServer("dev-server", { NODE_EXTRA_CA_CERTS: site.caPath });
  const context = await browser.newContext();
  const app = await context.newPage();
  const wp = await context.newPage();
  app.setDefaultTimeout(180_000);
  app.setDefaultNavigationTimeout(180_000);
  const serverErrors = watchServerErrors(
    app,
    (url, method) => method === "POST" && (url.endsWith("/sessions") || url.endsWith("/chat")),
  );

  await app.goto(`${dev.url}/signup`);
  await app.getByLabel("Email").fill(`dev${Date.now()}@example.com`);
  await app.getByLabel("Password").fill(password);
  await app.getByRole("button", { name: "Create account" }).click();
  await expect(app.getByTestId("signed-in-as")).toBeVisible();

  // The cookie a page's server action sealed opens every JSON route from the same browser.
  const me = await inPage(app, "GET", "/auth/me");
  expect(me.status).toBe(200);
  expect((await inPage(app, "GET", "/sites")).status).toBe(200);
  const chat = await inPage(app, "POST", "/chat", { siteId: "0b6f0d5e-8a51-4d0b-9c51-2f1c7e7f0a11", message: "hi" });
  expect(chat.json.error.code).toBe("agent_unavailable"); // signed in; no model configured
  const sandbox = await inPage(app, "POST", "/sessions", {});
  expect(sandbox.json.error.code).toBe("sandbox_unavailable"); // signed in; sandboxes off by default

  // Pair the WordPress running on this machine: loopback hosts are allowed in development.
  await app.goto(`${dev.url}/connect`);
  await app.getByLabel("Site address").fill(site.url);
  await app.getByRole("button", { name: "Get a pairing code" }).click();
  const shown = (await app.getByTestId("pairing-code").textContent())!.trim();
  expect(shown).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);

  await logInToWordPress(wp, site.url, site.adminUser, site.adminPassword);
  await expect(wp.locator("#wpadminbar")).toBeVisible();
  await wp.goto(`${site.url}/wp-admin/options-general.php?page=sitewright`);
  await wp.locator("#sitewright_service_url").fill(dev.url);
  await wp.locator("#sitewright_code").fill(shown);
  await wp.locator("#sitewright-connect-submit").click();
  await expect(wp.locator(".notice[data-outcome]")).toHaveClass(/notice-success/);

  await expect(app.getByTestId("pairing-redeemed")).toBeVisible();
  await app.getByRole("button", { name: "Confirm" }).click();
  await expect(app.getByTestId("pairing-active")).toBeVisible();

  const sites = await inPage(app, "GET", "/sites");
  expect(sites.json.sites.map((s: { status: string }) => s.status)).toEqual(["active"]);
  const siteId = sites.json.sites[0].id as string;
  expect((await inPage(app, "GET", `/sites/${siteId}`)).json.site.status).toBe("active");
  expect((await inPage(app, "GET", "/sites/%FF")).status).toBe(404);
  expect(serverErrors).toEqual([]);
  await context.close();
});

test("restarts with other environment variables keep the secrets and never reload a page in a loop", async ({
  browser,
}) => {
  test.setTimeout(600_000);
  const secrets = readFileSync(SECRETS, "utf8");
  expect(statSync(SECRETS).mode & 0o777).toBe(0o600);

  const restarts: Record<string, string>[] = [{ AGENT_MAX_STEPS: "11" }, { AGENT_MAX_STEPS: "9", LOG_LEVEL: "warn" }];
  for (const variables of restarts) {
    await dev?.stop();
    dev = await startDevServer("dev-server", { NODE_EXTRA_CA_CERTS: site.caPath, ...variables });
    const page = await browser.newPage();
    page.setDefaultNavigationTimeout(180_000);
    // Full page loads, counted by the document requests the page makes (a same-document history update is not one).
    let loads = 0;
    page.on("request", (request) => {
      if (request.resourceType() === "document" && request.frame() === page.mainFrame()) loads += 1;
    });
    await page.goto(`${dev.url}/login`);
    await expect(page.getByRole("button", { name: "Log in" })).toBeVisible({ timeout: 180_000 });
    const settled = loads;
    await page.waitForTimeout(8_000); // the loop reloaded several times a second
    expect(loads - settled, `page reloads after a restart with ${JSON.stringify(variables)}`).toBe(0);
    await page.close();
    expect(readFileSync(SECRETS, "utf8")).toBe(secrets);
  }
});
