/**
 * The chat page as a browser loads it from the production build: its first-load JavaScript (gzip), read from the
 * build's manifests, its time to interactive in Chromium (navigation start → the composer hydrated, marked by
 * `performance.mark("sitewright:chat-interactive")`) and to the live chat (its lazily loaded part in, marked by
 * `sitewright:chat-live`), p50 of a few cold loads.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright";
import { insertSiteRow } from "@/test/agent-site";
import { openDatabase, setDatabaseForTests } from "@/lib/db";
import { type Figure, figure } from "./lib/figures";
import type { RunningApp } from "./lib/app";
import { median } from "./lib/stats";
import { sized } from "./lib/smoke";

const ROUTE = "/sites/[id]/chat/page";
/** Issue #21: ≤ 200 KiB gzip, as ai-chatbot's budget (the live chat, Markdown and tool cards load after the first paint). */
export const FIRST_LOAD_BUDGET_KIB = 200;
const RUNS = sized(7);

/** Every script the chat page loads at first: the framework's root files plus the route's and its layouts' chunks. */
export function chatPageFirstLoad(buildDir: string): { files: number; gzipBytes: number; rawBytes: number } {
  const next = path.join(buildDir, ".next");
  const build = JSON.parse(readFileSync(path.join(next, "build-manifest.json"), "utf8")) as { rootMainFiles: string[] };
  const manifestFile = path.join(next, "server/app/sites/[id]/chat/page_client-reference-manifest.js");
  const scope: { self?: unknown; __RSC_MANIFEST?: Record<string, { entryJSFiles: Record<string, string[]> }> } = {};
  scope.self = scope;
  new Function("self", "globalThis", readFileSync(manifestFile, "utf8"))(scope, scope);
  const entries = scope.__RSC_MANIFEST?.[ROUTE]?.entryJSFiles;
  if (!entries) throw new Error(`no client manifest for ${ROUTE}`);
  const files = new Set([...build.rootMainFiles, ...Object.values(entries).flat()]);
  let gzipBytes = 0;
  let rawBytes = 0;
  for (const file of files) {
    const content = readFileSync(path.join(next, file));
    rawBytes += content.length;
    gzipBytes += gzipSync(content, { level: 9 }).length;
  }
  return { files: files.size, gzipBytes, rawBytes };
}

export async function benchChatPage(app: RunningApp, buildDir: string, databaseUrl: string): Promise<Figure[]> {
  const s = "Chat page";
  const firstLoad = chatPageFirstLoad(buildDir);

  const email = `bench-chat-${Date.now()}@example.com`;
  const signup = await fetch(`${app.url}/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "a long and unusual passphrase 7" }),
  });
  if (signup.status !== 201) throw new Error(`sign-up answered ${signup.status}`);
  const userId = ((await signup.json()) as { user: { id: string } }).user.id;
  const cookie = signup.headers.getSetCookie()[0]!.split(";")[0]!;
  const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];

  const handle = await openDatabase(databaseUrl);
  await setDatabaseForTests(handle);
  let siteId: string;
  try {
    siteId = await insertSiteRow({
      userId,
      url: "https://bench.localhost",
      token: "unused",
      secret: "unused",
      info: { name: "Bench" },
    });
  } finally {
    await setDatabaseForTests(undefined);
    await handle.close();
  }

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-sync", "--no-first-run"],
  });
  const times: number[] = [];
  const liveTimes: number[] = [];
  try {
    for (let run = 0; run < RUNS + 1; run++) {
      // A fresh context per load: a cold cache, as a first visit.
      const context = await browser.newContext();
      await context.addCookies([{ name, value, url: app.url }]);
      const page = await context.newPage();
      await page.goto(`${app.url}/sites/${siteId}/chat`);
      await page.waitForSelector('[data-testid="chat"][data-ready]');
      const [interactive, live] = await page.evaluate(() =>
        ["sitewright:chat-interactive", "sitewright:chat-live"].map(
          (mark) => performance.getEntriesByName(mark)[0]?.startTime ?? Number.NaN,
        ),
      );
      // The first load warms the server's own caches.
      if (run > 0) {
        times.push(interactive!);
        liveTimes.push(live!);
      }
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return [
    figure(s, `first-load JavaScript (gzip, ${firstLoad.files} files)`, firstLoad.gzipBytes / 1024, "KiB", {
      text: `≤ ${FIRST_LOAD_BUDGET_KIB} KiB`,
      ok: firstLoad.gzipBytes <= FIRST_LOAD_BUDGET_KIB * 1024,
    }),
    figure(s, "first-load JavaScript (uncompressed)", firstLoad.rawBytes / 1024, "KiB"),
    figure(s, `time to interactive, production build, Chromium (p50 of ${RUNS} cold loads)`, median(times), "ms"),
    figure(
      s,
      `time to the live chat (streaming, approvals), Chromium (p50 of ${RUNS} cold loads)`,
      median(liveTimes),
      "ms",
    ),
  ];
}
