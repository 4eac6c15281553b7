/**
 * `node --import tsx e2e/readme-screenshot.ts` (after `npm run build`): takes the README's screenshot from the
 * real app in Chromium. It starts what the e2e specs use (the production build behind https, a real WordPress
 * with the plugin, PostgreSQL, the scripted model), signs up, connects the site, asks for an edit and for a
 * Markdown answer, and writes docs/images/chat.png.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright";
import globalSetup from "./global-setup";
import { e2eState } from "./support/state";
import { insertSiteRow } from "../test/agent-site";
import { openDatabase, setDatabaseForTests } from "../lib/db";
import { createSiteClient } from "../lib/sites/client";

const root = path.resolve(import.meta.dirname, "..");
const teardown = await globalSetup();
const { appUrl, site, databaseUrl } = e2eState();
const handle = await openDatabase(databaseUrl);
await setDatabaseForTests(handle);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-sync", "--no-first-run"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 860 }, ignoreHTTPSErrors: true });
  await page.goto(`${appUrl}/signup`);
  await page.getByLabel("Name (optional)").fill("Ada");
  await page.getByLabel("Email").fill(`ada${Date.now()}@example.com`);
  await page.getByLabel("Password").fill("a long and unusual passphrase 7");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByTestId("signed-in-as").waitFor();
  const userId = (await (await page.request.get(`${appUrl}/auth/me`)).json()).user.id as string;

  const { token, secret } = JSON.parse(
    execFileSync(
      "php",
      [
        path.join(root, "plugin/bin/sitewright-cli.php"),
        `--wp=${site.wpPath}`,
        "create-credentials",
        "--scopes=site:read,content:read,content:write",
      ],
      { encoding: "utf8" },
    ),
  ) as { token: string; secret: string };
  const client = createSiteClient(
    { baseUrl: site.url, restUrl: site.restUrl, token, secret },
    { ca: readFileSync(site.caPath, "utf8"), allowlist: ["localhost"] },
  );
  const info = (await client.get<Record<string, unknown>>("/sitewright/v1/info")).data;
  const siteId = await insertSiteRow({ userId, url: site.url, token, secret, info });
  const created = await client.post<{ id: number }>("/wp/v2/pages", { title: "About", status: "draft" });

  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  const ask = async (text: string, waitFor: string) => {
    await page.getByLabel("Message").fill(text);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText(waitFor).first().waitFor();
  };
  await ask(`Rename page ${created.data.id} to "About us"`, `Renamed page ${created.data.id}`);
  await ask("Summarize the About page", "Before publishing, consider");
  await page.reload();
  await page.getByText("Before publishing, consider").waitFor();
  await page.screenshot({ path: path.join(root, "docs/images/chat.png") });
  process.stdout.write("docs/images/chat.png written\n");
} finally {
  await browser.close();
  await setDatabaseForTests(undefined);
  await handle.close();
  await teardown();
}
