/**
 * The README's first command, as a new user runs it: `npm run dev` with no app configuration at all, then the whole
 * first visit in Chromium: sign up in the page, call the JSON routes from that same browser, pair a WordPress site
 * on this machine with the code the real plugin's admin screen redeems, and confirm. Then restarts with other
 * environment variables: the development secrets stay the same and no page reloads itself in a loop. Last, the
 * README's "Try it end to end" section word for word, in a fresh copy of the project: its commands as written and
 * its steps in Chromium, ending signed in with a paired site and a chat, and still so after `npm run dev` restarts.
 *
 * Given to the dev server besides nothing: NODE_EXTRA_CA_CERTS (not app configuration: Node must trust the local
 * WordPress's test CA, as a developer's machine trusts its own) and PORT (this machine is shared by several
 * engineers' runs, so 3000 may be taken; `npm run dev` honours PORT as the README says).
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect as baseExpect, type Page, test } from "@playwright/test";
import { startLocalSite, type LocalSite } from "../scripts/site-local";
import { logInToWordPress } from "./support/wp-login";
import { type AppProcess, freePort, ROOT, startDevServer, waitForHealth } from "./support/app-process";
import {
  dotenvFromReadme,
  freshCopy,
  readmeTrySection,
  runShellLine,
  type Shell,
  waitForOutput,
} from "./support/readme-try";
import { startScriptedModel } from "./support/scripted-model";
import { allowTest, scaled } from "./support/waits";

test.describe.configure({ mode: "serial" });
// The dev server compiles each page on its first request: on two shared cores that can take a minute.
const expect = baseExpect.configure({ timeout: scaled(180_000) });

const password = "a long and unusual passphrase 7";
const SECRETS = path.join(ROOT, ".dev-secrets.json");
let site: LocalSite;
let dev: AppProcess | undefined;

test.beforeAll(async () => {
  allowTest(300_000);
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
  allowTest(600_000);
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
  allowTest(600_000);
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
    await expect(page.getByRole("button", { name: "Log in" })).toBeVisible({ timeout: scaled(180_000) });
    const settled = loads;
    await page.waitForTimeout(8_000); // the loop reloaded several times a second
    expect(loads - settled, `page reloads after a restart with ${JSON.stringify(variables)}`).toBe(0);
    await page.close();
    expect(readFileSync(SECRETS, "utf8")).toBe(secrets);
  }
});

/** The README's step 1, second line, as written: the local WordPress; what it printed, read as a newcomer reads it. */
async function startReadmeSite(dir: string, line: string) {
  const shell = runShellLine(dir, line, "readme-site-local");
  await waitForOutput(shell, /Press Ctrl-C to stop\./, 240_000);
  const printed = shell.output();
  const url = /is running at (https:\/\/\S+)/.exec(printed)![1]!;
  const [, adminUser, adminPassword] = /\(user (\S+), password (\S+)\)/.exec(printed)!;
  const caPath = /Trust the CA: NODE_EXTRA_CA_CERTS=(\S+)/.exec(printed)![1]!;
  return { shell, url, adminUser: adminUser!, adminPassword: adminPassword!, caPath };
}

/** The README's step 3 command line, as written, after the `export` line it gives; up once /health answers. */
async function startReadmeApp(dir: string, exportLine: string, runLine: string, url: string): Promise<Shell> {
  const shell = runShellLine(dir, `${exportLine}\n${runLine}`, "readme-dev");
  await waitForHealth(url, shell.child, 240_000);
  return shell;
}

test("the README's end-to-end section, word for word: its commands, then sign up, pair and chat; a restart keeps it all", async ({
  browser,
}) => {
  allowTest(900_000);
  const { prose, blocks } = readmeTrySection();
  const [siteBlock, modelBlock, dotenvBlock, runBlock] = blocks;
  // Step 1: the system setup is the test run's own first step (scripts/test.sh), once per machine as the README says.
  expect(siteBlock![0]).toMatch(/^bash scripts\/setup\/system\.sh\s+# once/);
  expect(siteBlock![1]).toBe("npm run site:local -- --allow-http-service");
  // Step 2: any OpenAI-compatible endpoint; here the local scripted one, told to the app by the three variables.
  expect(modelBlock!.join("\n")).toContain("ollama serve");
  expect(prose).toContain("only the three variables below change");
  // Step 3: the line that starts the app. The copy already has the installed tree (hard links), so `npm install`,
  // which would write through those links into this checkout's node_modules, is the one part left out.
  expect(runBlock![0]).toMatch(/^export NODE_EXTRA_CA_CERTS=\S+$/);
  expect(runBlock![1]).toBe("npm install && npm run dev");
  const copy = freshCopy();
  const model = await startScriptedModel();
  let site: Awaited<ReturnType<typeof startReadmeSite>> | undefined;
  let app: Shell | undefined;
  try {
    site = await startReadmeSite(copy.dir, siteBlock![1]!);
    const port = await freePort();
    const appUrl = `http://localhost:${port}`;
    const values = {
      APP_URL: appUrl,
      PORT: String(port),
      NODE_EXTRA_CA_CERTS: site.caPath,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: "e2e-key",
      AGENT_MODEL: "scripted",
    };
    writeFileSync(path.join(copy.dir, ".env"), dotenvFromReadme(dotenvBlock!, values));
    const exportLine = runBlock![0]!.replace(/=\S+$/, `=${site.caPath}`);
    const runLine = runBlock![1]!.replace("npm install && ", "");
    app = await startReadmeApp(copy.dir, exportLine, runLine, appUrl);

    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(180_000);
    page.setDefaultNavigationTimeout(180_000);
    await followStepFour(page, await context.newPage(), prose, { appUrl, site });

    // `npm run dev` again, as after a reboot: the account, the paired site and the chat are still there.
    await app.stop();
    app = await startReadmeApp(copy.dir, exportLine, runLine, appUrl);
    await page.goto(appUrl);
    await expect(page.getByTestId("signed-in-as")).toBeVisible();
    await page.getByRole("link", { name: /^Chat about / }).click();
    await expect(page.locator('li[data-role="user"]', { hasText: readmeExample(prose) })).toBeVisible();
    await expect(page.locator('[data-testid="tool-card"][data-state="done"]', { hasText: "About us" })).toBeVisible();
    await context.close();
  } finally {
    await app?.stop();
    await site?.shell.stop();
    await model.close();
    copy.remove();
  }
});

/** The chat example the README gives (“Rename the Sample Page to About us”). */
const readmeExample = (prose: string) => /for example “([^”]+)”/.exec(prose)![1]!;

/**
 * Step 4 in Chromium, each click named by the README's own words (a step the README leaves out cannot be followed):
 * sign up, connect the site with the code in WordPress, confirm, open the chat, ask its example and approve it.
 */
async function followStepFour(
  page: Page,
  wp: Page,
  prose: string,
  { appUrl, site }: { appUrl: string; site: { url: string; adminUser: string; adminPassword: string } },
) {
  const says = (words: string) => expect(prose, `the README says "${words}"`).toContain(words);
  for (const words of ["_Create an account_", "_Connect a WordPress site_", "_Site address_", "_Get a pairing code_"])
    says(words);
  for (const words of ["_Settings → Sitewright_", "_Connect_", "_Confirm_", "_Start chatting about this site_"])
    says(words);
  await page.goto(appUrl);
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByLabel("Email").fill(`readme${Date.now()}@example.com`);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByTestId("signed-in-as")).toBeVisible();
  await page.getByRole("link", { name: "Connect a WordPress site" }).click();
  await page.getByLabel("Site address").fill(site.url);
  await page.getByRole("button", { name: "Get a pairing code" }).click();
  const code = (await page.getByTestId("pairing-code").textContent())!.trim();
  const address = (await page.getByTestId("pairing-code-card").locator("code.address").textContent())!.trim();

  await logInToWordPress(wp, site.url, site.adminUser, site.adminPassword);
  await wp.goto(`${site.url}/wp-admin/options-general.php?page=sitewright`);
  await wp.getByLabel("Sitewright address").fill(address);
  await wp.getByLabel("Pairing code").fill(code);
  await wp.getByRole("button", { name: "Connect", exact: true }).click();
  await expect(wp.locator(".notice[data-outcome]")).toHaveClass(/notice-success/);

  await expect(page.getByTestId("pairing-redeemed")).toBeVisible();
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByTestId("pairing-active")).toBeVisible();
  await page.getByRole("link", { name: "Start chatting about this site" }).click();

  const example = readmeExample(prose);
  expect(example).toBe("Rename the Sample Page to About us");
  await page.getByLabel("Message").fill(example);
  await page.getByRole("button", { name: "Send" }).click();
  says("_Approve_");
  const card = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await card.getByRole("button", { name: /^Approve/ }).click();
  // The rename's own card (the search before it is done at once): written, and seen on the live site.
  const renamed = page.locator('[data-testid="tool-card"][data-state="done"]', { hasText: "About us" });
  await expect(renamed.getByTestId("verification")).toHaveAttribute("data-status", "verified");
  await wp.goto(`${site.url}/wp-admin/edit.php?post_type=page`);
  await expect(wp.locator("a.row-title", { hasText: /^About us$/ })).toHaveCount(1);
}
