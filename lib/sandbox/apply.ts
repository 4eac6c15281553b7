/**
 * Apply and discard of a rehearsal (a sandbox change set; docs/rehearsal.md). Apply replays what the change
 * set changed in the sandbox on the live site, in ONE conditional batch of the plugin's items route:
 * - each changed item's state is read back from the sandbox (what the owner saw in the preview), and only the
 *   fields the rehearsal changed are sent;
 * - sandbox ids become live ids through the manifest (pages, media, parents, image and navigation blocks), and
 *   the sandbox's addresses (media proxy, preview) become the live site's;
 * - creations come first, then edits and trashings;
 * - every live item must still be the version the sandbox was copied from (the manifest's `liveVersion`); when a
 *   person edited one since, the plugin writes nothing and the owner gets `409 drifted` naming the pages.
 * What was written becomes a live change set, undoable like any other, and the sandbox set is `applied`.
 * Discard marks the set `discarded` and throws the sandbox copy away once nothing else in it waits for Apply.
 */
import { auditChange, getChangeSet, publicChangeSet, recordWritten } from "@/lib/changes/change-sets";
import { kindOf, POST_FIELDS, type PlannedItem } from "@/lib/changes/plan";
import { readItems, StaleItemsError, type SiteItem, writeItems } from "@/lib/changes/site-items";
import { now as clockNow } from "@/lib/clock";
import {
  closeRehearsalChangeSet,
  findSandboxManifest,
  hasPendingRehearsal,
  listChangeAudit,
  upsertSandboxManifest,
} from "@/lib/db/queries";
import type { ChangeItem, ItemChange, SandboxManifest, SandboxManifestItem } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { SiteClient } from "@/lib/sites/types";
import { previewBase } from "./preview";

export type RehearsalRequest = { userId: string; siteId: string; changeSetId: string; itemIds?: string[] };

/** What apply and discard need of the sandbox manager. */
export type RehearsalSandboxAccess = {
  appUrl: string;
  /** The owner's ready sandbox and its signed client; throws 404 when it is gone. */
  clientForOwned(input: { userId: string; id: string }): Promise<{ client: SiteClient; hostPort: number | null }>;
  deleteSandbox(input: { userId: string; id: string }): Promise<void>;
};

const notApplicable = (message: string, details?: Record<string, unknown>) =>
  new AppError("not_applicable", message, { ...(details ? { details } : {}) });

type LiveChange = { change: ItemChange; item: ChangeItem; title: string; kind: string; sandboxRef: string };

export async function applyRehearsal(
  request: RehearsalRequest,
  live: SiteClient,
  sandboxes: RehearsalSandboxAccess,
  now: () => Date = clockNow,
) {
  const set = await getChangeSet(request);
  if (set.target !== "sandbox")
    throw notApplicable("This change set was made on the live site: there is nothing to apply.");
  if (set.status !== "pending" && set.status !== "partially_applied")
    throw notApplicable(`This change set is ${set.status.replaceAll("_", " ")}: it cannot be applied again.`);
  // Items an earlier Apply of some items (`itemIds`) already made live: the audit of each successful Apply.
  const alreadyLive = new Set(
    (await listChangeAudit({ changeSetId: set.id }))
      .filter((entry) => entry.action === "apply" && entry.outcome === "ok")
      .flatMap((entry) => entry.itemIds),
  );
  const written = set.items.filter((item) => item.status === "applied");
  let chosen = written.filter((item) => !alreadyLive.has(item.id));
  if (request.itemIds?.length) {
    const wanted = new Set(request.itemIds);
    chosen = set.items.filter((item) => wanted.has(item.id));
    if (chosen.length !== wanted.size)
      throw new AppError("not_found", "Some of those items are not in this change set.");
    if (chosen.some((item) => item.status !== "applied"))
      throw notApplicable("Some of those items were never written in the sandbox.");
    if (chosen.some((item) => alreadyLive.has(item.id)))
      throw notApplicable("Some of those items were already applied to the live site.");
    // The sandbox holds an item's latest state only: its changes cannot be replayed one without the other.
    const split = written.find(
      (item) => !wanted.has(item.id) && !alreadyLive.has(item.id) && chosen.some((c) => c.ref === item.ref),
    );
    if (split) {
      throw notApplicable(`Changes to "${split.title}" are applied together: choose all of them, or none.`, {
        items: [{ id: split.id, title: split.title, reason: "Another change to the same item was chosen." }],
      });
    }
  }
  if (chosen.length === 0) throw notApplicable("Nothing in this change set was written in the sandbox.");

  const sandboxId = set.sandboxId;
  const access = sandboxId
    ? await sandboxes.clientForOwned({ userId: request.userId, id: sandboxId }).catch(() => undefined)
    : undefined;
  const manifest = sandboxId ? await findSandboxManifest({ sandboxId }) : undefined;
  if (!sandboxId || !access || !manifest) {
    throw notApplicable(
      "The sandbox this change set was rehearsed in is gone (it expired or was deleted). Discard it and ask again.",
    );
  }

  const plan = await planLiveChanges({
    chosen,
    sandbox: access.client,
    manifest,
    appUrl: sandboxes.appUrl,
    sandboxId,
    hostPort: access.hostPort,
  });
  const audit = (outcome: string, detail?: string) =>
    auditChange({
      changeSetId: set.id,
      siteId: set.siteId,
      userId: request.userId,
      action: "apply",
      itemIds: chosen.map((item) => item.id),
      outcome,
      detail,
    });
  if (plan.refused.length > 0) {
    await audit("refused", plan.refused.map((r) => `${r.title}: ${r.reason}`).join(" "));
    throw notApplicable(
      `Nothing was applied: ${plan.refused.map((r) => `"${r.title}"`).join(", ")} cannot be applied from this sandbox.`,
      { items: plan.refused },
    );
  }

  let done: Awaited<ReturnType<typeof writeItems>>;
  try {
    done = await writeItems(
      live,
      plan.changes.map((c) => c.change),
    );
  } catch (error) {
    if (error instanceof StaleItemsError) {
      const items = error.items.map((stale) => {
        const entry = plan.changes.find((c) => c.change.ref === stale.ref);
        return {
          id: entry?.item.id ?? stale.ref,
          title: entry?.title ?? stale.ref,
          reason:
            stale.reason === "missing"
              ? "It no longer exists on the live site."
              : "It was edited on the live site after the sandbox copy was made; applying would overwrite that edit.",
        };
      });
      await audit("drifted", items.map((i) => `${i.title}: ${i.reason}`).join(" "));
      throw new AppError(
        "drifted",
        `Nothing was applied: ${items.map((i) => `"${i.title}"`).join(", ")} changed on the live site since the sandbox copy was made. Ask again to rehearse on the current version.`,
        { details: { items } },
      );
    }
    await audit("failed", error instanceof Error ? error.message : String(error));
    throw error;
  }

  const planned: PlannedItem[] = plan.changes.map((entry, index) => {
    const result = done[index];
    const changed = Object.keys(entry.change.fields ?? {});
    const pick = (state: Record<string, unknown> | null | undefined) =>
      state ? Object.fromEntries(changed.map((key) => [key, state[key] ?? null])) : null;
    return {
      kind: entry.kind,
      ref: entry.change.ref,
      action: entry.change.action,
      title: entry.title,
      summary: `Applied from the sandbox: ${entry.item.summary}`,
      before: pick(result?.before),
      after: pick(result?.after),
      visible: true,
      change: entry.change,
      beforeState: result?.before ?? null,
      versionRead: entry.change.expect,
    };
  });
  // One live change set per Apply: a later Apply of the remaining items is another one, undoable on its own.
  const applyId = alreadyLive.size === 0 ? `apply-${set.id}` : `apply-${set.id}-${alreadyLive.size}`;
  const recorded = await recordWritten(
    { userId: request.userId, siteId: set.siteId, conversationId: set.conversationId, turnId: applyId, target: "live" },
    applyId,
    planned,
    done,
  );
  const at = now();
  const complete = written.every((item) => alreadyLive.has(item.id) || chosen.some((c) => c.id === item.id));
  await closeRehearsalChangeSet({ id: set.id, status: complete ? "applied" : "partially_applied", now: at });
  await audit("ok", `live change set ${recorded.changeSetId}`);
  // The live items now hold the applied versions: a later rehearsal set of this sandbox applies over them.
  await upsertSandboxManifest({ ...manifest, items: updatedManifestItems(manifest.items, plan.changes, done) }).catch(
    (error) => log.warn("could not record the applied versions in the manifest", { sandboxId, error }),
  );
  return publicChangeSet(await getChangeSet({ ...request, changeSetId: recorded.changeSetId }));
}

export async function discardRehearsal(
  request: RehearsalRequest,
  sandboxes: RehearsalSandboxAccess,
  now: () => Date = clockNow,
) {
  const set = await getChangeSet(request);
  if (set.target !== "sandbox")
    throw notApplicable("This change set was made on the live site: undo it instead of discarding it.");
  if (set.status !== "pending" && set.status !== "partially_applied")
    throw notApplicable(`This change set is ${set.status.replaceAll("_", " ")}: it cannot be discarded.`);
  await closeRehearsalChangeSet({ id: set.id, status: "discarded", now: now() });
  await auditChange({
    changeSetId: set.id,
    siteId: set.siteId,
    userId: request.userId,
    action: "discard",
    itemIds: set.items.map((item) => item.id),
    outcome: "ok",
  });
  // The rehearsed changes stay in the sandbox's pages; a copy nobody waits on is thrown away, so the next turn
  // starts from the live site again and a later apply cannot carry what was discarded.
  if (set.sandboxId && !(await hasPendingRehearsal({ sandboxId: set.sandboxId }))) {
    await sandboxes
      .deleteSandbox({ userId: request.userId, id: set.sandboxId })
      .catch((error) =>
        log.info("the discarded rehearsal's sandbox was already gone", { sandboxId: set.sandboxId, error }),
      );
  }
  return publicChangeSet(await getChangeSet(request));
}

// ------------------------------------------------------------------ planning the live batch

type Refusal = { id: string; title: string; reason: string };

async function planLiveChanges(input: {
  chosen: ChangeItem[];
  sandbox: SiteClient;
  manifest: SandboxManifest;
  appUrl: string;
  sandboxId: string;
  hostPort: number | null;
}): Promise<{ changes: LiveChange[]; refused: Refusal[] }> {
  const { manifest } = input;
  const bySandboxRef = new Map<string, ChangeItem[]>();
  for (const item of [...input.chosen].sort((a, b) => a.seq - b.seq)) {
    bySandboxRef.set(item.ref, [...(bySandboxRef.get(item.ref) ?? []), item]);
  }
  const current = new Map<string, SiteItem>();
  const refs = [...bySandboxRef.keys()].filter((ref) => APPLICABLE_REF.test(ref));
  for (let start = 0; start < refs.length; start += 50) {
    for (const item of await readItems(input.sandbox, refs.slice(start, start + 50))) current.set(item.ref, item);
  }

  const ids = idMap(manifest.items);
  const strings = stringMap({ ...input, manifest });
  const toLive = (value: unknown) => mapValue(value, strings, ids);
  const changes: LiveChange[] = [];
  const refused: Refusal[] = [];

  for (const [sandboxRef, items] of bySandboxRef) {
    const first = items[0]!;
    const last = items.at(-1)!;
    const state = current.get(sandboxRef);
    const created = items.some((item) => item.action === "create");
    const entry = manifestEntry(manifest.items, sandboxRef);
    const title = entry?.title ?? last.title;
    const refuse = (reason: string) => refused.push({ id: first.id, title, reason });

    if (!APPLICABLE_REF.test(sandboxRef)) {
      refuse(
        "Applying this kind of change from a sandbox is not supported yet; make it on the live site in live mode.",
      );
      continue;
    }
    const designFields = DESIGN_FIELDS[sandboxRef.slice(0, sandboxRef.indexOf(":"))];
    if (designFields && !entry?.liveRef) {
      refuse("The sandbox does not run the live site's theme, so its design cannot be applied; make it in live mode.");
      continue;
    }
    if (created) {
      if (!state?.exists || !state.state) continue; // made and removed again within the rehearsal: nothing to do
      const fields: Record<string, unknown> = { type: state.state.type };
      for (const key of POST_FIELDS) if (key in state.state) fields[key] = state.state[key];
      const mapped = mapPostFields(fields, ids, toLive);
      if (typeof mapped === "string") refuse(mapped);
      else {
        changes.push({
          change: { ref: "post:new", expect: null, action: "create", fields: mapped },
          item: last,
          title: String(state.state.title ?? title),
          kind: kindOf("post:new", state.state),
          sandboxRef,
        });
      }
      continue;
    }
    if (!entry?.liveRef || !entry.liveVersion) {
      refuse("It was not copied from the live site with a version to check, so applying could overwrite an edit.");
      continue;
    }
    const before = first.beforeState ?? {};
    if (!state?.exists || !state.state) {
      refuse("It was deleted in the sandbox; delete it on the live site yourself if you mean to.");
      continue;
    }
    const after = state.state;
    if (designFields) {
      // Whole top-level fields (a palette edit sends all of `settings`): the live item is the version copied, so
      // the sandbox's field is exactly the live one plus the rehearsal's change.
      const fields: Record<string, unknown> = {};
      for (const key of designFields) {
        if (key in after && JSON.stringify(before[key]) !== JSON.stringify(after[key]))
          fields[key] = toLive(after[key]);
      }
      if (Object.keys(fields).length === 0) continue;
      changes.push({
        change: { ref: entry.liveRef, expect: entry.liveVersion, action: "update", fields },
        item: last,
        title,
        kind: last.kind,
        sandboxRef,
      });
      continue;
    }
    if (sandboxRef.startsWith("option:")) {
      if (JSON.stringify(before.value) === JSON.stringify(after.value)) continue;
      changes.push({
        change: {
          ref: entry.liveRef,
          expect: entry.liveVersion,
          action: "update",
          fields: { value: toLive(after.value) },
        },
        item: last,
        title,
        kind: "setting",
        sandboxRef,
      });
      continue;
    }
    const fields: Record<string, unknown> = {};
    for (const key of POST_FIELDS) {
      if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) fields[key] = after[key];
    }
    if (Object.keys(fields).length === 0) continue;
    const trashed = after.status === "trash" && before.status !== "trash";
    const mapped = mapPostFields(fields, ids, toLive);
    if (typeof mapped === "string") {
      refuse(mapped);
      continue;
    }
    if (trashed) delete mapped.status;
    changes.push({
      change: {
        ref: entry.liveRef,
        expect: entry.liveVersion,
        action: trashed ? "trash" : "update",
        ...(trashed && Object.keys(mapped).length === 0 ? {} : { fields: mapped }),
      },
      item: last,
      title: String(after.title ?? title),
      kind: kindOf(entry.liveRef, after),
      sandboxRef,
    });
  }
  // Creations first, so the edits that follow may already be read against a complete site.
  changes.sort((a, b) => Number(b.change.action === "create") - Number(a.change.action === "create"));
  return { changes, refused };
}

/** Refs a rehearsal can apply: posts (pages, navigation...), options, and the theme's design items. */
const APPLICABLE_REF = /^(post|option|custom_css|global_styles|template_part):/;

/** The fields of each design kind a change may carry (the plugin's Sitewright_Design_Items::FIELDS and CSS). */
const DESIGN_FIELDS: Record<string, readonly string[]> = {
  custom_css: ["css"],
  global_styles: ["customised", "settings", "styles"],
  template_part: ["customised", "content"],
};

function manifestEntry(items: SandboxManifestItem[], sandboxRef: string): SandboxManifestItem | undefined {
  const [kind, key] = sandboxRef.split(":");
  // Options and design items have the same ref on both sides (a name, a theme, a slug).
  if (kind !== "post") return items.find((item) => item.liveRef === sandboxRef);
  return items.find(
    (item) => item.liveRef?.startsWith("post:") && String(item.sandboxId) === key && item.kind !== "attachment",
  );
}

/** Sandbox post and attachment ids → live ids. */
function idMap(items: SandboxManifestItem[]): Map<number, number> {
  const map = new Map<number, number>();
  for (const item of items) {
    if (typeof item.sandboxId === "number" && typeof item.sourceId === "number") map.set(item.sandboxId, item.sourceId);
  }
  return map;
}

/** The sandbox's own addresses and what they are on the live site. */
function stringMap(input: { manifest: SandboxManifest; appUrl: string; sandboxId: string; hostPort: number | null }) {
  const pairs: Array<[string, string]> = [];
  const liveUrl = (input.manifest.sourceUrl ?? "").replace(/\/+$/, "");
  if (input.manifest.sourceUploadsUrl) {
    pairs.push([`${input.appUrl}/sandbox/media/${input.sandboxId}/`, input.manifest.sourceUploadsUrl]);
  }
  if (liveUrl) {
    pairs.push([previewBase(input.appUrl, input.sandboxId), liveUrl]);
    if (input.hostPort) pairs.push([`http://127.0.0.1:${input.hostPort}`, liveUrl]);
  }
  return pairs.flatMap(
    ([from, to]): Array<[string, string]> => [
      [from, to],
      [from.replaceAll("/", "\\/"), to.replaceAll("/", "\\/")],
    ],
  );
}

function mapValue(value: unknown, strings: Array<[string, string]>, ids: Map<number, number>): unknown {
  if (typeof value === "string") {
    let text = value;
    for (const [from, to] of strings) text = text.replaceAll(from, to);
    return mapBlockIds(text, ids);
  }
  if (Array.isArray(value)) return value.map((entry) => mapValue(entry, strings, ids));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapValue(v, strings, ids)]));
  }
  return value;
}

/** Ids inside block markup: block attributes (`id`, `ref`, `mediaId`) and `wp-image-N` classes. */
export function mapBlockIds(content: string, ids: Map<number, number>): string {
  if (ids.size === 0) return content;
  const swap = (id: number) => ids.get(id) ?? id;
  return content
    .replace(/<!-- wp:([a-z0-9/-]+) (\{.*?\}) (\/)?-->/g, (whole, name: string, json: string, selfClosing?: string) => {
      let attributes: Record<string, unknown>;
      try {
        attributes = JSON.parse(json) as Record<string, unknown>;
      } catch {
        return whole;
      }
      let changed = false;
      for (const key of ["id", "ref", "mediaId"]) {
        const id = attributes[key];
        if (typeof id === "number" && ids.has(id)) {
          attributes[key] = swap(id);
          changed = true;
        }
      }
      return changed ? `<!-- wp:${name} ${JSON.stringify(attributes)} ${selfClosing ?? ""}-->` : whole;
    })
    .replace(/\bwp-image-(\d+)\b/g, (_whole, id: string) => `wp-image-${swap(Number(id))}`);
}

/** Post fields with ids and addresses made live; a reason (string) when an id has no live counterpart. */
function mapPostFields(
  fields: Record<string, unknown>,
  ids: Map<number, number>,
  toLive: (value: unknown) => unknown,
): Record<string, unknown> | string {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if ((key === "parent" || key === "featured_media") && typeof value === "number" && value > 0) {
      const mapped = ids.get(value);
      if (mapped === undefined)
        return `Its ${key === "parent" ? "parent page" : "featured image"} exists only in the sandbox; apply that first or choose one from the live site.`;
      out[key] = mapped;
    } else {
      out[key] = toLive(value);
    }
  }
  return out;
}

/** The manifest after an apply: the written items' new live versions, and created items' ids on both sides. */
function updatedManifestItems(
  items: SandboxManifestItem[],
  changes: LiveChange[],
  done: Array<{ ref: string; version: string | null; title: string }>,
): SandboxManifestItem[] {
  const next = items.map((item) => ({ ...item }));
  changes.forEach((entry, index) => {
    const result = done[index];
    if (!result) return;
    if (entry.change.action === "create") {
      const [, sandboxKey] = entry.sandboxRef.split(":");
      const [, liveKey] = result.ref.split(":");
      next.push({
        kind: entry.kind,
        sourceId: Number(liveKey),
        sandboxId: Number(sandboxKey),
        checksum: "",
        title: result.title,
        liveRef: result.ref,
        liveVersion: result.version,
      });
      return;
    }
    const item = next.find((candidate) => candidate.liveRef === entry.change.ref);
    if (item) item.liveVersion = result.version;
  });
  return next;
}
