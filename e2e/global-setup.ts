/**
 * Starts what the end-to-end specs drive: a real WordPress with our plugin over https, a fresh PostgreSQL
 * database, the production build of the app (`next start`) behind https, all on loopback. Returns the teardown.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, openSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { createTestDatabase } from "../lib/db/testing";
import { namespaceFor, sandboxConfig } from "../lib/sandbox/config";
import type { DriverName } from "../lib/sandbox/driver";
import { createDriver } from "../lib/sandbox/drivers";
import { ensureTestCa } from "../scripts/lib/tls";
import { type LocalPlugin, startLocalSite } from "../scripts/site-local";
import { startSmtpSink } from "../test/smtp-sink";
import { startBrowserNetwork } from "./support/browser-network";
import type { FullConfig } from "@playwright/test";
import { type E2eState, e2eRunPaths, STATE_FILE_VARIABLE } from "./support/state";
import { startScriptedModel } from "./support/scripted-model";
import { startTlsProxy } from "./support/tls-proxy";

const root = path.resolve(import.meta.dirname, "..");

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });

async function waitFor(url: string, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** `config` is Playwright's; a script that starts what the specs use (e2e/readme-screenshot.ts) passes none. */
export default async function globalSetup(config?: FullConfig) {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npm run build` first (npm test does).");
  }
  // This config's own folder for its state, its app's mail and log: another config may be running beside it.
  const run = e2eRunPaths(config?.configFile ?? "readme-screenshot");
  rmSync(run.dir, { recursive: true, force: true });
  mkdirSync(run.dir, { recursive: true });
  const stopBrowserNetwork = await startBrowserNetwork();
  const ca = ensureTestCa();
  // A page builder for its own run (playwright.elementor.config.ts): SITEWRIGHT_E2E_PLUGINS=elementor.
  const plugins = (process.env.SITEWRIGHT_E2E_PLUGINS ?? "").split(",").filter(Boolean) as LocalPlugin[];
  const site = await startLocalSite({ title: "Sitewright E2E", plugins });
  const model = await startScriptedModel();
  const database = await createTestDatabase();
  await database.handle.close(); // the app opens its own connections
  // The app's mail goes over real SMTP to a local sink, which writes each message where the specs read it.
  const { mailDir } = run;
  const mail = await startSmtpSink({ dir: mailDir });

  const appPort = await freePort();
  const proxyPort = await freePort();
  const appUrl = `https://localhost:${proxyPort}`;
  const log = openSync(run.appLog, "w");
  const app: ChildProcess = spawn(
    process.execPath,
    // What `npm start` runs: Next.js behind server.mjs, which decides client addresses.
    [path.join(root, "server.mjs"), "-p", String(appPort), "-H", "127.0.0.1"],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(appPort),
        APP_URL: appUrl,
        DATABASE_URL: database.url,
        SESSION_SECRET: "e2e-session-secret-that-is-long-enough-000",
        ENCRYPTION_KEY: "ab".repeat(32),
        SITE_HOST_ALLOWLIST: "localhost",
        AUTH_RATE_LIMIT: "1000",
        REDEEM_RATE_LIMIT: "1000",
        NODE_EXTRA_CA_CERTS: ca.caCert,
        SMTP_URL: mail.url,
        MAIL_FROM: "Sitewright E2E <no-reply@sitewright.test>",
        OPENAI_API_KEY: "e2e-key",
        OPENAI_BASE_URL: model.baseURL,
        AGENT_MODEL: "scripted",
        // Every read and write operation, plus publishing (destructive: it waits for the user's approval).
        AGENT_OPERATIONS:
          "get_site_info,list_pages,list_posts,read_page,list_media,read_menus,read_site_settings,create_draft,update_page,replace_block,insert_block,add_image,set_site_identity,set_featured_image,publish_page,read_global_styles,update_global_styles,list_terms,save_term,set_post_terms,schedule_post,update_seo,update_media,start_bulk_job,edit_builder_page",
        // Sandboxes only for the sandbox run (playwright.sandbox.config.ts): the other specs chat in live mode.
        SANDBOX_DRIVER: process.env.E2E_SANDBOX_DRIVER ?? "",
        // No warm pool here: refilling it in the background adds a bridge network while a page is loading, and
        // Chromium aborts loads with ERR_NETWORK_CHANGED when the host's interfaces change. The pool has its own
        // tests (lib/sandbox); here each sandbox starts cold, inside the request that asks for it.
        SANDBOX_POOL_SIZE: "0",
        // Behind the TLS proxy below, which appends the client's address, as production's proxy does.
        TRUSTED_PROXY_HOPS: "1",
      },
      stdio: ["ignore", log, log],
    },
  );
  const proxy = await startTlsProxy({ cert: ca.cert, key: ca.key, upstreamPort: appPort, port: proxyPort });
  await waitFor(`http://127.0.0.1:${appPort}/health`, 60_000);

  const state: E2eState = {
    appUrl,
    databaseUrl: database.url,
    mailDir,
    site: {
      url: site.url,
      restUrl: site.restUrl,
      adminUrl: `${site.url}/wp-admin/`,
      adminUser: site.adminUser,
      adminPassword: site.adminPassword,
      wpPath: site.wpPath,
      caPath: site.caPath,
    },
  };
  writeFileSync(run.stateFile, JSON.stringify(state, null, 2));
  // Spec workers start after this and inherit it: they find this run's state, read the app's database and sign as
  // the app does.
  Object.assign(process.env, {
    [STATE_FILE_VARIABLE]: run.stateFile,
    NODE_EXTRA_CA_CERTS: ca.caCert,
    ENCRYPTION_KEY: "ab".repeat(32),
    SITE_HOST_ALLOWLIST: "localhost",
    LOG_LEVEL: "silent",
  });

  return async () => {
    app.kill("SIGTERM");
    // The app's sandboxes (its pool, the specs' rehearsals) are labelled with its namespace: remove them all, as GC
    // would on the app's next start (this database is dropped, so there is no next start).
    if (process.env.E2E_SANDBOX_DRIVER) {
      const driver = createDriver(sandboxConfig({ driver: process.env.E2E_SANDBOX_DRIVER as DriverName }));
      for (const sandbox of await driver.list(namespaceFor(database.url)).catch(() => [])) {
        await driver.remove(sandbox.handle).catch(() => {});
      }
    }
    await proxy.close();
    await mail.close();
    await model.close();
    await site.stop();
    await database.drop();
    await stopBrowserNetwork?.();
  };
}
