/**
 * Replaying a rehearsal on the live site, planned without touching either site (docs/rehearsal.md, "Exact apply"):
 * what is written is exactly the chosen items' recorded after-state — the fields the chosen items changed, from the
 * first one's state before to the last one's state after — never the sandbox's current state (which may hold other
 * change sets' edits). Sandbox ids become live ids through the manifest, and the sandbox's own addresses (handed in:
 * the preview, the media proxy) become the live site's. An earlier change set of the same sandbox that touched an
 * item and is not live yet makes the plan `superseded`: its edits are inside the chosen items' before-state.
 */
import type { ChangeItem, ItemChange, SandboxManifest, SandboxManifestItem } from "@/lib/db/schema";
import { ITEM_KINDS, POST_FIELDS } from "@/lib/vocabulary";
import { kindOf } from "./plan";

export type ReplayItem = Pick<
  ChangeItem,
  | "id"
  | "changeSetId"
  | "ref"
  | "action"
  | "title"
  | "summary"
  | "kind"
  | "beforeState"
  | "afterState"
  | "madeLiveBy"
  | "before"
  | "after"
>;

export type LiveChange = {
  change: ItemChange;
  item: ReplayItem;
  title: string;
  kind: string;
  sandboxRef: string;
  /** The item's fields as the sandbox copied them from the live site (in live terms): the merge's common base. */
  copied?: Record<string, unknown>;
};
export type Refusal = { id: string; title: string; reason: string };
export type Supersession = { id: string; title: string; changeSetId: string };

/**
 * The post fields a replay writes and compares. Not the local date: a floating draft's is the time of its last save,
 * which the sandbox's copy and its writes set on their own; scheduling and dating carry `date`.
 */
const REPLAY_POST_FIELDS = POST_FIELDS.filter((field) => field !== "date_local");

/** Refs a rehearsal can apply: posts (pages, navigation...), options, and the theme's design items. */
const APPLICABLE_REF = /^(post|option|custom_css|global_styles|template_part):/;

/** The fields of each design kind a change may carry (plugin/vocabulary.json). */
const DESIGN_FIELDS: Record<string, readonly string[]> = {
  custom_css: ITEM_KINDS.custom_css.fields,
  global_styles: ITEM_KINDS.global_styles.fields,
  template_part: ITEM_KINDS.template_part.fields,
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function manifestEntry(items: SandboxManifestItem[], sandboxRef: string): SandboxManifestItem | undefined {
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

/**
 * Items of other change sets written before the chosen ones on the same refs that are not live and not chosen:
 * their edits are in the chosen items' state before, so applying the chosen ones alone would carry them.
 */
export function findSupersession(input: {
  chosen: ReplayItem[];
  /** Every item written in the sandbox, oldest first, with its set's status. */
  history: Array<ReplayItem & { setStatus: string }>;
  chosenSets: Set<string>;
}): Supersession[] {
  const chosenIds = new Set(input.chosen.map((item) => item.id));
  const out = new Map<string, Supersession>();
  for (const item of input.chosen) {
    const position = input.history.findIndex((h) => h.id === item.id);
    for (const earlier of input.history.slice(0, Math.max(position, 0))) {
      if (earlier.ref !== item.ref || chosenIds.has(earlier.id) || earlier.madeLiveBy) continue;
      if (input.chosenSets.has(earlier.changeSetId)) continue;
      out.set(earlier.changeSetId, { id: earlier.id, title: earlier.title, changeSetId: earlier.changeSetId });
    }
  }
  return [...out.values()];
}

type PlanInput = {
  /** The chosen items, oldest first. */
  chosen: ReplayItem[];
  manifest: SandboxManifest;
  /** The sandbox's own addresses and what they are on the live site (the preview, the media proxy...). */
  addresses: Array<[string, string]>;
};

function planDesign(
  after: Record<string, unknown>,
  before: Record<string, unknown>,
  fields: readonly string[],
  toLive: (v: unknown) => unknown,
) {
  const out: Record<string, unknown> = {};
  // Whole top-level fields (a palette edit sends all of `settings`): the live item is the version copied, so the
  // recorded field is exactly the live one plus the rehearsal's change.
  for (const key of fields) if (key in after && !same(before[key], after[key])) out[key] = toLive(after[key]);
  return out;
}

/** One sandbox ref's chosen items, oldest first, with what planning them needs. */
type RefToPlan = {
  sandboxRef: string;
  first: ReplayItem;
  last: ReplayItem;
  entry: SandboxManifestItem | undefined;
  title: string;
  ids: Map<number, number>;
  toLive: (value: unknown) => unknown;
};

/** What one ref comes to: a live change, a reason it cannot be applied, or nothing to do. */
type RefPlan = LiveChange | { refused: string } | undefined;

/** A post made in the sandbox: created on the live site with its last state. */
function planCreation(ref: RefToPlan, after: Record<string, unknown> | null): RefPlan {
  if (!after) return undefined; // made and removed again within the rehearsal: nothing to do
  const fields: Record<string, unknown> = { type: after.type };
  for (const key of REPLAY_POST_FIELDS) if (key in after) fields[key] = after[key];
  const mapped = mapPostFields(fields, ref.ids, ref.toLive);
  if (typeof mapped === "string") return { refused: mapped };
  return {
    change: { ref: "post:new", expect: null, action: "create", fields: mapped },
    item: ref.last,
    title: String(after.title ?? ref.title),
    kind: kindOf("post:new", after),
    sandboxRef: ref.sandboxRef,
  };
}

/** An option: its value, when the rehearsal changed it. */
function planOption(
  ref: RefToPlan,
  live: LiveVersion,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
) {
  if (same(before.value, after.value)) return undefined;
  return {
    change: { ...live, action: "update", fields: { value: ref.toLive(after.value) } },
    item: ref.last,
    title: ref.title,
    kind: "setting",
    sandboxRef: ref.sandboxRef,
    copied: { value: ref.toLive(before.value) },
  } satisfies LiveChange;
}

/** A post copied from the live site: the fields the rehearsal changed, or its trashing. */
function planPostUpdate(
  ref: RefToPlan,
  live: LiveVersion,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): RefPlan {
  const fields: Record<string, unknown> = {};
  for (const key of REPLAY_POST_FIELDS) if (!same(before[key], after[key])) fields[key] = after[key];
  if (Object.keys(fields).length === 0) return undefined;
  const copied = mapPostFields(
    Object.fromEntries(REPLAY_POST_FIELDS.filter((key) => key in before).map((key) => [key, before[key]])),
    ref.ids,
    ref.toLive,
  );
  const trashed = after.status === "trash" && before.status !== "trash";
  const mapped = mapPostFields(fields, ref.ids, ref.toLive);
  if (typeof mapped === "string") return { refused: mapped };
  if (trashed) delete mapped.status;
  return {
    change: {
      ...live,
      action: trashed ? "trash" : "update",
      ...(trashed && Object.keys(mapped).length === 0 ? {} : { fields: mapped }),
    },
    item: ref.last,
    title: String(after.title ?? ref.title),
    kind: kindOf(live.ref, after),
    sandboxRef: ref.sandboxRef,
    ...(typeof copied === "string" ? {} : { copied }),
  };
}

type LiveVersion = { ref: string; expect: string };

/** One ref's plan: which kind of item it is decides how its recorded states become a live change. */
function planRef(ref: RefToPlan, items: ReplayItem[]): RefPlan {
  const { sandboxRef, entry, last } = ref;
  const after = last.afterState;
  if (!APPLICABLE_REF.test(sandboxRef)) {
    return {
      refused:
        "Applying this kind of change from a sandbox is not supported yet; make it on the live site in live mode.",
    };
  }
  const designFields = DESIGN_FIELDS[sandboxRef.slice(0, sandboxRef.indexOf(":"))];
  if (designFields && !entry?.liveRef) {
    return {
      refused: "The sandbox does not run the live site's theme, so its design cannot be applied; make it in live mode.",
    };
  }
  if (items.some((item) => item.action === "create")) return planCreation(ref, after);
  if (!entry?.liveRef || !entry.liveVersion) {
    return {
      refused: "It was not copied from the live site with a version to check, so applying could overwrite an edit.",
    };
  }
  if (!after) return { refused: "It was deleted in the sandbox; delete it on the live site yourself if you mean to." };
  const before = ref.first.beforeState ?? {};
  const live = { ref: entry.liveRef, expect: entry.liveVersion };
  if (designFields) {
    const fields = planDesign(after, before, designFields, ref.toLive);
    if (Object.keys(fields).length === 0) return undefined;
    return { change: { ...live, action: "update", fields }, item: last, title: ref.title, kind: last.kind, sandboxRef };
  }
  if (sandboxRef.startsWith("option:")) return planOption(ref, live, before, after);
  return planPostUpdate(ref, live, before, after);
}

/** The one conditional batch that makes the chosen items live, or why some cannot be applied. */
export function planReplay(input: PlanInput): { changes: LiveChange[]; refused: Refusal[] } {
  const { manifest } = input;
  const byRef = new Map<string, ReplayItem[]>();
  for (const item of input.chosen) byRef.set(item.ref, [...(byRef.get(item.ref) ?? []), item]);
  const ids = idMap(manifest.items);
  const strings = input.addresses.flatMap(
    ([from, to]): Array<[string, string]> => [
      [from, to],
      [from.replaceAll("/", "\\/"), to.replaceAll("/", "\\/")],
    ],
  );
  const toLive = (value: unknown) => mapValue(value, strings, ids);
  const changes: LiveChange[] = [];
  const refused: Refusal[] = [];

  for (const [sandboxRef, items] of byRef) {
    const first = items[0]!;
    const last = items.at(-1)!;
    const entry = manifestEntry(manifest.items, sandboxRef);
    const title = entry?.title ?? last.title;
    const plan = planRef({ sandboxRef, first, last, entry, title, ids, toLive }, items);
    if (plan && "refused" in plan) refused.push({ id: first.id, title, reason: plan.refused });
    else if (plan) changes.push(plan);
  }
  // Creations first, so the edits that follow may already be read against a complete site.
  changes.sort((a, b) => Number(b.change.action === "create") - Number(a.change.action === "create"));
  return { changes, refused };
}

/** The manifest after an apply: the written items' new live versions, and created items' ids on both sides. */
export function manifestAfterApply(
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

export type FieldConflict = { id: string; title: string; field: string };

/**
 * Rehearsal Apply, three-way per field (API.md v1.3): for each change whose live item moved since the copy, the
 * fields a person changed there (live against copied) are compared with the fields the rehearsal writes. None in
 * common: the change is sent again over the live version, so the person's edit stays and the rehearsal's goes in.
 * One in common, or no copy to compare with, is a real conflict, named by item (as the live site calls it now) and
 * field. `live` holds the moved items as the site reads them now.
 */
export function mergeLiveEdits(
  changes: LiveChange[],
  live: Map<string, { exists: boolean; state: Record<string, unknown> | null; version: string | null; title?: string }>,
): { changes: LiveChange[]; conflicts: FieldConflict[] } {
  const conflicts: FieldConflict[] = [];
  const merged = changes.map((entry) => {
    const now = live.get(entry.change.ref);
    if (!now || now.version === entry.change.expect || entry.change.action === "create") return entry;
    const written = Object.keys(entry.change.fields ?? {});
    if (entry.change.action === "trash") written.push("status");
    // Named as the live site calls it now: the rehearsal may have renamed it, and that name exists only in the sandbox.
    const title = now.exists && now.title ? now.title : entry.title;
    const conflict = (field: string) => conflicts.push({ id: entry.item.id, title, field });
    if (!now.exists || !now.state || !entry.copied) {
      conflict(written[0] ?? "status");
      return entry;
    }
    const copied = entry.copied;
    const personal = Object.keys(copied).filter((key) => !same(copied[key], now.state?.[key]));
    const both = written.filter((field) => personal.includes(field));
    for (const field of both) conflict(field);
    return both.length ? entry : { ...entry, change: { ...entry.change, expect: now.version } };
  });
  return { changes: merged, conflicts };
}
