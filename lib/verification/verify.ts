/**
 * The look at the live site after a write, an Apply or an Undo (docs/verification.md): the plugin purges the caches
 * it can name for the items, then the service fetches each affected public page as an anonymous visitor (through
 * the SSRF-safe fetch, no cookies) and checks that what the change set says changed is what the page shows —
 * within a bounded number of attempts. Only addresses on the site's own origin (its URL as recorded at pairing) are
 * fetched: whatever else the plugin's answer names is ignored and logged, and no redirect leaves the origin. A page that still shows the earlier version is "not visible yet", with the
 * reason in words; a page that cannot be fetched is "unreachable"; never a success that was not seen.
 */
import { z } from "zod";
import { readItems } from "@/lib/sites/items";
import { log } from "@/lib/log";
import type { SiteClient } from "@/lib/sites/types";
import { type Expectation, expectationFor, type VerifiableItem } from "./expectations";
import { pageText, sourceForSearch } from "./page-text";

export type UrlCheck = { url: string; status: "verified" | "not_visible" | "unreachable"; reason?: string };
export type Verification = {
  status: "pending" | "verified" | "not_visible" | "unreachable";
  checkedAt?: string;
  urls: UrlCheck[];
  /** The caches the plugin purged before the look. */
  purged?: string[];
};

export type FetchedPage = { status: number; body: string; headers: Headers };
/** Fetches a public page as an anonymous visitor, never following a redirect off `siteOrigin`; throws on no answer. */
export type PageFetcher = (url: string, siteOrigin: string) => Promise<FetchedPage>;

export type VerifyInput = {
  client: SiteClient;
  /** The site's URL as recorded at pairing: its origin is the only one fetched; its home when the plugin names none. */
  siteUrl: string;
  /** The items and the version each should now have on the site (what the write left). */
  items: Array<VerifiableItem & { version: string | null }>;
  fetchPage: PageFetcher;
  /** Waits before each attempt, in ms (bounded retries). */
  delays?: number[];
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
};

export const DEFAULT_DELAYS = [0, 1_500, 4_000];
export const PURGE_ROUTE = "/sitewright/v1/purge";

const purgeSchema = z.object({
  urls: z.array(z.object({ ref: z.string(), url: z.string().nullable(), public: z.boolean() })),
  home: z.string(),
  purged: z.array(z.string()),
});
type Purge = z.infer<typeof purgeSchema>;

/** Asks the plugin to purge; an older plugin without the route (or a failure) leaves us with the home URL only. */
async function purge(client: SiteClient, refs: string[]): Promise<Purge | null> {
  try {
    const { data } = await client.post<unknown>(PURGE_ROUTE, { refs });
    return purgeSchema.parse(data);
  } catch {
    return null;
  }
}

type Target = { url: string; expectations: Expectation[] };

const originOf = (url: string | null | undefined): string | undefined => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

/** The addresses in the plugin's answer that are not on the site's own origin: never fetched, only logged. */
function offSite(purged: Purge | null, siteOrigin: string): string[] {
  if (!purged) return [];
  const named = [purged.home, ...purged.urls.map((u) => u.url)].filter((url): url is string => url !== null);
  return [...new Set(named.filter((url) => originOf(url) !== siteOrigin))];
}

function targets(expectations: Expectation[], purged: Purge | null, siteUrl: string): Target[] {
  const siteOrigin = originOf(siteUrl);
  const onSite = (url: string | null | undefined): url is string => Boolean(url) && originOf(url) === siteOrigin;
  const home = onSite(purged?.home) ? purged.home : `${siteUrl.replace(/\/+$/, "")}/`;
  const byUrl = new Map<string, Expectation[]>();
  for (const expectation of expectations) {
    let url = home;
    if (expectation.page === "item") {
      const id = expectation.ref.slice("post:".length);
      const entry = purged?.urls.find((u) => u.ref === expectation.ref);
      // A page that is gone is looked up by id: its permalink changes when it is trashed.
      url = expectation.gone || !onSite(entry?.url) ? `${home}?p=${id}` : entry.url;
    }
    byUrl.set(url, [...(byUrl.get(url) ?? []), expectation]);
  }
  return [...byUrl].map(([url, list]) => ({ url, expectations: list }));
}

type Look = { ok: boolean; stale: boolean; missing: string[]; lingering: string[]; cacheHeader?: string };

/** What the page shows against what it should. `stale`: it still shows something the change removed. */
function look(page: FetchedPage, expectations: Expectation[]): Look {
  const text = pageText(page.body);
  const source = sourceForSearch(page.body);
  const missing: string[] = [];
  const lingering: string[] = [];
  const earlier: string[] = [];
  for (const expectation of expectations) {
    if (expectation.gone) {
      if (page.status < 400) lingering.push(`“${expectation.title}” (still public)`);
      continue;
    }
    if (page.status >= 400) {
      missing.push(`the page answered ${page.status}`);
      continue;
    }
    for (const want of expectation.present) if (!text.includes(want)) missing.push(`“${want}”`);
    for (const want of expectation.sourcePresent) if (!source.includes(want)) missing.push(want);
    for (const old of expectation.absent) if (text.includes(old)) lingering.push(`“${old}”`);
    // Earlier titles may stand elsewhere on the page; shown only to tell a stale page from another one.
    for (const old of expectation.earlier ?? []) if (text.includes(old)) earlier.push(`“${old}”`);
  }
  const cache = ["x-cache", "cf-cache-status", "x-proxy-cache", "x-litespeed-cache", "x-sitewright-test-cache", "age"]
    .map((name) => (page.headers.get(name) ? `${name}: ${page.headers.get(name)}` : ""))
    .find(Boolean);
  return {
    ok: missing.length === 0 && lingering.length === 0,
    stale: lingering.length > 0 || (missing.length > 0 && earlier.length > 0),
    missing,
    lingering: [...lingering, ...(missing.length > 0 ? earlier : [])],
    ...(cache ? { cacheHeader: cache } : {}),
  };
}

const clip = (items: string[]) => (items.length > 3 ? [...items.slice(0, 3), `${items.length - 3} more`] : items);

export async function verifyLiveChange(input: VerifyInput): Promise<Verification | null> {
  const now = input.now ?? (() => new Date());
  const sleep = input.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const expectations = input.items.map(expectationFor).filter((e): e is Expectation => e !== null);
  if (expectations.length === 0) return null;
  const purged = await purge(
    input.client,
    input.items.map((i) => i.ref),
  );
  const siteOrigin = new URL(input.siteUrl).origin;
  const ignored = offSite(purged, siteOrigin);
  if (ignored.length > 0) {
    log.warn("the site's purge answer named addresses off its own origin: ignored", {
      siteOrigin,
      ignored: ignored.slice(0, 10),
    });
  }
  const checks: UrlCheck[] = [];
  for (const target of targets(expectations, purged, input.siteUrl)) {
    let last: Look | null = null;
    let failure: string | null = null;
    for (const delay of input.delays ?? DEFAULT_DELAYS) {
      if (delay > 0) await sleep(delay);
      try {
        const page = await input.fetchPage(target.url, siteOrigin);
        failure = page.status >= 500 ? `The page answered ${page.status}.` : null;
        last = look(page, target.expectations);
        if (last.ok) break;
      } catch (error) {
        failure = `The page could not be fetched (${error instanceof Error ? error.message : String(error)}).`;
      }
    }
    if (last?.ok) {
      checks.push({ url: target.url, status: "verified" });
      continue;
    }
    if (!last || failure) {
      checks.push({ url: target.url, status: "unreachable", reason: failure ?? "The page could not be fetched." });
      continue;
    }
    checks.push({
      url: target.url,
      status: "not_visible",
      reason: await explain(input, target, last, purged),
    });
  }
  const status = checks.some((c) => c.status === "not_visible")
    ? "not_visible"
    : checks.some((c) => c.status === "unreachable")
      ? "unreachable"
      : "verified";
  return { status, checkedAt: now().toISOString(), urls: checks, ...(purged ? { purged: purged.purged } : {}) };
}

/** Why the page does not show the change, in the owner's words. */
async function explain(input: VerifyInput, target: Target, seen: Look, purged: Purge | null): Promise<string> {
  const refs = target.expectations.map((e) => e.ref);
  const current = await readItems(input.client, refs).catch(() => null);
  const changedSince = current?.filter((item) => {
    const wanted = input.items.find((i) => i.ref === item.ref);
    return wanted && wanted.version !== null && item.version !== wanted.version;
  });
  const shown = [
    ...(seen.missing.length ? [`Not shown: ${clip(seen.missing).join(", ")}.`] : []),
    ...(seen.lingering.length ? [`Still shown: ${clip(seen.lingering).join(", ")}.`] : []),
  ].join(" ");
  if (changedSince?.length) {
    const names = changedSince.map((item) => `"${item.title || item.ref}"`).join(", ");
    return `The site changed ${names} after the write (a plugin or a person), so the page does not show the change. ${shown}`;
  }
  const tried = purged
    ? `Sitewright purged: ${purged.purged.join(", ")}`
    : "the site could not be asked to purge its caches";
  if (seen.stale) {
    return `Not visible yet: the page still shows the earlier version after purging (${tried}); a cache in front of the site (a CDN or the host's cache) keeps it${seen.cacheHeader ? ` (${seen.cacheHeader})` : ""}. ${shown}`;
  }
  return `The page does not show the change: the theme or a plugin displays something else. ${shown}`;
}
