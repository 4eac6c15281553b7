/**
 * Sandbox mode (docs/rehearsal.md): the sandbox a conversation rehearses in. One per conversation, made on the
 * first sandbox-mode turn as a copy of the site's default subset (its published pages, up to 50, its ten latest
 * posts, and what they reference: menus, navigation, styles, CSS, media through the proxy, site title and
 * tagline), so the agent's first reads already find what they need; what else it looks for is copied in on the
 * way (pull-through.ts). Before each turn the copy is checked against
 * the live site (the versions the manifest recorded): when a person changed a copied item since, and nothing is
 * waiting for Apply, the conversation gets a fresh copy; when rehearsed changes are waiting, the sandbox is kept
 * and Apply will refuse, naming what drifted (it never writes over that edit).
 */
import { now as clockNow } from "@/lib/clock";
import {
  findConversationSandbox,
  findSandboxById,
  findSandboxManifest,
  hasPendingRehearsal,
  linkConversationSandbox,
  upsertSandboxManifest,
} from "@/lib/db/queries";
import type { Sandbox, SandboxManifest, SandboxManifestItem } from "@/lib/db/schema";
import { log } from "@/lib/log";
import type { SiteClient } from "@/lib/sites/types";
import { copiedOf, pullThroughClient } from "./pull-through";
import { pullIntoSandbox, readLiveVersions } from "./subset";

/** What the rehearsal needs of the sandbox manager: a narrow view of it. */
export type RehearsalSandboxes = {
  createSandbox(input: { userId: string; siteId: string }): Promise<{ id: string }>;
  clientFor(sandbox: Sandbox): SiteClient;
  destroy(sandbox: Sandbox): Promise<void>;
  /** The media proxy's base for a sandbox, ending with `/` (what copied content's media URLs point at). */
  mediaBaseUrl(sandboxId: string): string;
  /** Whether the sandbox's container still runs (a host restart or a person may have removed it). */
  isRunning(sandbox: Sandbox): Promise<boolean>;
};

/**
 * The agent's client for a rehearsal: the sandbox, filled from the live site with what the agent looks for that
 * the first copy did not bring (pull-through.ts), each copy recorded in the manifest.
 */
function rehearsalClient(input: {
  sandbox: Sandbox;
  manifest: SandboxManifest;
  live: SiteClient;
  sandboxes: RehearsalSandboxes;
}): SiteClient {
  const target = input.sandboxes.clientFor(input.sandbox);
  const sandboxId = input.sandbox.id;
  return pullThroughClient({
    sandbox: target,
    live: input.live,
    items: input.manifest.items,
    sandboxId,
    pull: async (ids, copied) => {
      // A bulk job of the conversation may have copied some of them since this turn began: those are not copied
      // twice, and this turn learns where they are.
      const recorded = (await findSandboxManifest({ sandboxId }))?.items ?? [];
      const known = copiedOf(recorded);
      const pulled = await pullIntoSandbox({
        source: input.live,
        target,
        ids,
        copied: {
          posts: new Map([...known.posts, ...copied.posts]),
          media: new Map([...known.media, ...copied.media]),
        },
        mediaBaseUrl: input.sandboxes.mediaBaseUrl(sandboxId),
        uploadsBaseUrl: input.manifest.sourceUploadsUrl,
      });
      const already = recorded.filter(
        (item) =>
          item.liveRef?.startsWith("post:") &&
          ids.includes(Number(item.sourceId)) &&
          !copied.posts.has(Number(item.sourceId)),
      );
      return [...already, ...pulled.items];
    },
    save: async (items) => {
      await appendToManifest(sandboxId, input.manifest, items);
    },
  });
}

const manifestKey = (item: SandboxManifestItem) => `${item.kind}:${String(item.sourceId)}`;

/**
 * Adds copied items to the manifest as it is now: what others recorded meanwhile (a bulk job's copies, the versions an
 * Apply wrote) stays, and an item already there is not added again.
 */
async function appendToManifest(sandboxId: string, fallback: SandboxManifest, items: SandboxManifestItem[]) {
  const current = (await findSandboxManifest({ sandboxId })) ?? fallback;
  const known = new Set(current.items.map(manifestKey));
  const added = items.filter((item) => !known.has(manifestKey(item)));
  if (added.length > 0) await upsertSandboxManifest({ ...current, items: [...current.items, ...added] });
  return [...current.items, ...added];
}

export type Rehearsal = {
  sandbox: Sandbox;
  manifest: SandboxManifest;
  /** The signed client of the sandbox: the agent's operations run against it. */
  client: SiteClient;
  /** True when this turn made the copy (first turn, or the live site changed since the last copy). */
  fresh: boolean;
  /** Set when the conversation's earlier copy was gone (its container vanished): this is a new one. */
  replaced?: "vanished";
};

/** Items copied whose live version is not the one recorded (a person edited them since the copy). */
export async function driftedItems(
  live: SiteClient,
  manifest: SandboxManifest,
): Promise<Array<{ liveRef: string; title: string }>> {
  const recorded = manifest.items.filter((item) => item.liveRef && item.liveVersion);
  if (recorded.length === 0) return [];
  const current = await readLiveVersions(
    live,
    recorded.map((item) => item.liveRef!),
  );
  return recorded
    .filter((item) => current.has(item.liveRef!) && current.get(item.liveRef!) !== item.liveVersion)
    .map((item) => ({ liveRef: item.liveRef!, title: item.title ?? item.liveRef! }));
}

export async function rehearsalFor(input: {
  userId: string;
  siteId: string;
  conversationId: string;
  live: SiteClient;
  sandboxes: RehearsalSandboxes;
  now?: () => Date;
}): Promise<Rehearsal> {
  const now = input.now ?? clockNow;
  const link = await findConversationSandbox({ conversationId: input.conversationId });
  let linked = link ? await findSandboxById({ id: link.sandboxId }) : undefined;
  let replaced: Rehearsal["replaced"];
  if (linked && linked.status === "ready" && !(await input.sandboxes.isRunning(linked))) {
    // The copy is gone behind our back: the conversation goes on in a fresh one, and the model says so.
    log.warn("a rehearsal's container vanished: copying the site again", { sandboxId: linked.id });
    await input.sandboxes
      .destroy(linked)
      .catch((error) => log.warn("could not clean up a vanished rehearsal", { error }));
    linked = undefined;
    replaced = "vanished";
  }
  if (linked && linked.userId === input.userId && linked.status === "ready" && linked.expiresAt > now()) {
    const manifest = await findSandboxManifest({ sandboxId: linked.id });
    if (manifest) {
      const drifted = await driftedItems(input.live, manifest).catch((error) => {
        log.warn("could not compare a rehearsal with the live site", { sandboxId: linked.id, error });
        return [];
      });
      if (drifted.length === 0 || (await hasPendingRehearsal({ sandboxId: linked.id }))) {
        const client = rehearsalClient({ sandbox: linked, manifest, live: input.live, sandboxes: input.sandboxes });
        return { sandbox: linked, manifest, client, fresh: false };
      }
      log.info("live site changed since the rehearsal copy: copying again", {
        sandboxId: linked.id,
        items: drifted.length,
      });
      await input.sandboxes.destroy(linked).catch((error) => log.warn("could not remove a stale rehearsal", { error }));
    }
  }
  const created = await input.sandboxes.createSandbox({ userId: input.userId, siteId: input.siteId });
  const sandbox = await findSandboxById({ id: created.id });
  const manifest = await findSandboxManifest({ sandboxId: created.id });
  if (!sandbox || !manifest) throw new Error(`the rehearsal sandbox ${created.id} vanished while it was made`);
  await linkConversationSandbox({ conversationId: input.conversationId, sandboxId: sandbox.id, now: now() });
  const client = rehearsalClient({ sandbox, manifest, live: input.live, sandboxes: input.sandboxes });
  return { sandbox, manifest, client, fresh: true, ...(replaced ? { replaced } : {}) };
}

/**
 * A bulk job's view of a conversation's rehearsal sandbox (lib/workflows/bulk-job.ts): the sandbox's own client (the
 * job names sandbox ids), and the copying in of the live posts it selected that the sandbox does not hold yet —
 * content only, with their live versions, as pull-through copies (docs/bulk-jobs.md, "In sandbox mode").
 */
export type JobSandbox = {
  client: SiteClient;
  /** Live post ids → sandbox ids, after copying in those the sandbox lacks; ids the live site lacks are left out. */
  copyIn(liveIds: number[]): Promise<Map<number, number>>;
};

export function jobSandboxFor(input: {
  sandboxId: string;
  live: SiteClient;
  client: SiteClient;
  mediaBaseUrl: string;
}): JobSandbox {
  const { sandboxId } = input;
  return {
    client: input.client,
    async copyIn(liveIds) {
      const manifest = await findSandboxManifest({ sandboxId });
      if (!manifest) throw new Error("The rehearsal sandbox has no manifest any more.");
      const copied = copiedOf(manifest.items);
      const missing = liveIds.filter((id) => !copied.posts.has(id));
      if (missing.length > 0) {
        const pulled = await pullIntoSandbox({
          source: input.live,
          target: input.client,
          ids: missing,
          copied,
          mediaBaseUrl: input.mediaBaseUrl,
          uploadsBaseUrl: manifest.sourceUploadsUrl,
        });
        // Added to the manifest as it is now: a chat turn of the same conversation may have copied something.
        const merged = copiedOf(await appendToManifest(sandboxId, manifest, pulled.items));
        for (const [live, local] of merged.posts) copied.posts.set(live, local);
      }
      return new Map(liveIds.flatMap((id) => (copied.posts.has(id) ? [[id, copied.posts.get(id)!] as const] : [])));
    },
  };
}
