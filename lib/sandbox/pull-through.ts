/**
 * Sandbox mode's client: the agent's requests go to the sandbox, and when the agent looks for content the first
 * copy did not bring (a draft, a private page, an older post), that content is copied in from the live site first
 * (docs/rehearsal.md, "Filled with what the turn needs"). Reads only ever read the live site; every write goes to
 * the sandbox.
 *
 * - A list of pages or posts (`GET /wp/v2/pages|posts`, the agent's search) asks the live site the same question
 *   for ids, copies the ones the sandbox does not hold, then answers from the sandbox.
 * - One page or post by id (`GET /wp/v2/pages/12`) that the sandbox does not have is copied in when the live site
 *   has it, then read from the sandbox.
 * - The items route (`GET /sitewright/v1/items?refs=post:12`, how a write plans) does the same for posts it does
 *   not find.
 * Copies are serialised per turn, the manifest records each one (with its live version, so Apply's drift rule
 * covers it), and a failure to reach the live site leaves the sandbox's own answer.
 */
import type { SandboxManifestItem } from "@/lib/db/schema";
import { log } from "@/lib/log";
import { isSiteRequestError } from "@/lib/sites/client";
import { ITEMS_ROUTE, readItems } from "@/lib/sites/items";
import type { SiteClient, SiteResponse } from "@/lib/sites/types";

type Query = Record<string, string | number | boolean>;

export type PullThroughInput = {
  sandbox: SiteClient;
  live: SiteClient;
  /** The manifest's items as copied so far. */
  items: SandboxManifestItem[];
  /** Copies live posts into the sandbox (content only) and returns their new manifest items. */
  pull(ids: number[], copied: Copied): Promise<SandboxManifestItem[]>;
  /** Records the manifest's items after a copy. */
  save(items: SandboxManifestItem[]): Promise<void>;
  sandboxId: string;
};

export type Copied = { posts: Map<number, number>; media: Map<number, number> };

const LIST = /^\/wp\/v2\/(pages|posts)$/;
const ONE = /^\/wp\/v2\/(pages|posts)\/(\d+)$/;
/** The most posts one list may pull in (a list answers at most 50 anyway). */
const MAX_PULL = 50;

/** The live → sandbox ids of the posts and media a manifest's items say were copied. */
export function copiedOf(items: SandboxManifestItem[]): Copied {
  const copied: Copied = { posts: new Map(), media: new Map() };
  for (const item of items) {
    if (typeof item.sourceId !== "number" || typeof item.sandboxId !== "number") continue;
    if (item.kind === "attachment") copied.media.set(item.sourceId, item.sandboxId);
    else if (item.liveRef?.startsWith("post:")) copied.posts.set(item.sourceId, item.sandboxId);
  }
  return copied;
}

const isNotFound = (error: unknown) => isSiteRequestError(error) && error.siteStatus === 404;

/** What this turn has copied in so far, and the serialised copying of more. */
class Copies {
  private items: SandboxManifestItem[];
  private copied: Copied;
  /** Live ids asked for and not found there (or not copyable): not asked again this turn. */
  private readonly absent = new Set<number>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly input: PullThroughInput) {
    this.items = [...input.items];
    this.copied = copiedOf(this.items);
  }

  has(liveId: number): boolean {
    return this.copied.posts.has(liveId);
  }

  /** A live id as the sandbox knows it (ids are kept on copy where free; else the manifest maps them). */
  sandboxIdOf(liveId: number): number {
    return this.copied.posts.get(liveId) ?? liveId;
  }

  isSandboxId(id: number): boolean {
    return [...this.copied.posts.values()].includes(id);
  }

  /** Copies the live ids not in the sandbox yet; serialised, so two reads of one turn never copy a post twice. */
  ensure(ids: number[]): Promise<void> {
    const run = this.queue.then(() => this.copy(ids));
    this.queue = run.catch(() => {});
    return run;
  }

  private async copy(ids: number[]): Promise<void> {
    const { input } = this;
    const wanted = [...new Set(ids)].filter((id) => !this.has(id) && !this.absent.has(id)).slice(0, MAX_PULL);
    if (wanted.length === 0) return;
    try {
      const added = await input.pull(wanted, this.copied);
      for (const id of wanted) if (!added.some((item) => item.sourceId === id)) this.absent.add(id);
      if (added.length === 0) return;
      this.items = [...this.items, ...added];
      this.copied = copiedOf(this.items);
      await input.save(this.items);
      log.info("copied more of the live site into a rehearsal", { sandboxId: input.sandboxId, posts: added.length });
    } catch (error) {
      log.warn("could not copy content from the live site into the rehearsal", { sandboxId: input.sandboxId, error });
    }
  }
}

/** The live ids a list would show, asked of the live site with the agent's own question. */
async function liveIds(input: PullThroughInput, route: string, query: Query | undefined): Promise<number[]> {
  try {
    const { data } = await input.live.get<Array<{ id?: unknown }>>(route, { ...query, _fields: "id" });
    return (Array.isArray(data) ? data : []).map((item) => Number(item.id)).filter(Number.isInteger);
  } catch (error) {
    log.debug("the live site did not answer a rehearsal's list", { sandboxId: input.sandboxId, error });
    return [];
  }
}

/** A list of pages or posts: the live site's answer's ids are copied in first. */
async function getList<T>(input: PullThroughInput, copies: Copies, route: string, query?: Query) {
  const ids = await liveIds(input, route, query);
  if (ids.some((id) => !copies.has(id))) await copies.ensure(ids);
  return input.sandbox.get<T>(route, query);
}

/** One page or post by id: copied in when the sandbox does not have it and the live site does. */
async function getOne<T>(
  input: PullThroughInput,
  copies: Copies,
  match: RegExpExecArray,
  route: string,
  query?: Query,
) {
  try {
    return await input.sandbox.get<T>(route, query);
  } catch (error) {
    const id = Number(match[2]);
    if (!isNotFound(error) || copies.isSandboxId(id) || copies.has(id)) throw error;
    await copies.ensure([id]);
    if (!copies.has(id)) throw error;
    return input.sandbox.get<T>(`/wp/v2/${match[1]}/${copies.sandboxIdOf(id)}`, query);
  }
}

/** The items route (how a write plans): posts the sandbox does not find are copied in, then asked again. */
async function getItems<T>(input: PullThroughInput, copies: Copies, refs: string, query: Query) {
  const ids = refs
    .split(",")
    .map((ref) => /^post:(\d+)$/.exec(ref)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .filter((id) => !copies.isSandboxId(id) && !copies.has(id));
  if (ids.length > 0) {
    const found = await readItems(input.sandbox, refs.split(","));
    const missing = ids.filter((id) => found.some((i) => i.ref === `post:${id}` && !i.exists));
    await copies.ensure(missing);
  }
  return input.sandbox.get<T>(ITEMS_ROUTE, query);
}

export function pullThroughClient(input: PullThroughInput): SiteClient {
  const copies = new Copies(input);
  return {
    async get<T>(route: string, query?: Query): Promise<SiteResponse<T>> {
      if (LIST.test(route)) return getList<T>(input, copies, route, query);
      const one = ONE.exec(route);
      if (one) return getOne<T>(input, copies, one, route, query);
      if (route === ITEMS_ROUTE && typeof query?.refs === "string")
        return getItems<T>(input, copies, query.refs, query);
      return input.sandbox.get<T>(route, query);
    },
    post: (route, body) => input.sandbox.post(route, body),
    put: (route, body) => input.sandbox.put(route, body),
    delete: (route, query) => input.sandbox.delete(route, query),
  };
}
