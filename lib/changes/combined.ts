/**
 * A change set's diff as the owner reads it: one row per target (docs/change-sets.md, "Several changes to one item").
 * Items of one target in one set are planned in order, each against the state the earlier ones leave, written
 * together and undone as one (./chains.ts); their row shows the target's state before the first item and after the
 * last, for every field any of them touches, with the items it combines as steps. Pure and client-safe: the review
 * page, the job queue and the Changes page draw the same rows from the items they hold.
 */
import type { PublicChangeItem } from "./change-sets";
import type { VisiblePlace } from "@/lib/db/schema";

/** One of the items a combined row stands for, in plan order. */
export type CombinedStep = Pick<PublicChangeItem, "id" | "summary" | "status" | "action" | "restsOn">;

/** A row of the diff: an item alone (one step), or a target's items combined. `id` is the first item's. */
export type CombinedRow = PublicChangeItem & {
  /** Every item the row stands for, in plan order: a click on the row covers all of them. */
  itemIds: string[];
  steps: CombinedStep[];
};

type Fields = Record<string, unknown>;
type BuilderRow = { path: string; elementId: string; setting: string; before: unknown; after: unknown };

const fieldsOf = (value: unknown): Fields =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : {};

/** Before: each field as the first item that touches it found it. After: as the last item that sets it leaves it. */
function combineFields(items: PublicChangeItem[]): { before: Fields; after: Fields } {
  const before: Fields = {};
  const after: Fields = {};
  const seen = new Set<string>();
  for (const item of items) {
    const [was, is] = [fieldsOf(item.before), fieldsOf(item.after)];
    for (const field of [...Object.keys(was), ...Object.keys(is)]) {
      if (seen.has(field)) continue;
      seen.add(field);
      if (field in was) before[field] = was[field];
    }
    Object.assign(after, is);
  }
  return { before, after };
}

/** An Elementor page's rows (one per widget setting): the first `before` and the last `after` of each setting. */
function combineBuilderRows(items: PublicChangeItem[]): { before: Fields; after: Fields } {
  const rows = new Map<string, BuilderRow>();
  for (const item of items) {
    for (const row of (fieldsOf(item.after).elements ?? []) as BuilderRow[]) {
      const key = `${row.elementId}|${row.setting}`;
      const first = rows.get(key);
      rows.set(key, first ? { ...row, before: first.before } : row);
    }
  }
  return { before: {}, after: { elements: [...rows.values()] } };
}

/** What the items do together: a creation stays one, a trashing wins, else a change. */
function combinedAction(items: PublicChangeItem[]): string {
  if (items[0]!.action === "create") return "create";
  if (items.some((item) => item.action === "trash")) return "trash";
  return items.every((item) => item.action === items[0]!.action) ? items[0]!.action : "update";
}

function uniquePlaces(items: PublicChangeItem[]): VisiblePlace[] {
  const places = new Map<string, VisiblePlace>();
  for (const item of items) for (const place of item.places ?? []) places.set(JSON.stringify(place), place);
  return [...places.values()];
}

function combine(items: PublicChangeItem[]): CombinedRow {
  const [first, last] = [items[0]!, items.at(-1)!];
  const steps = items.map(({ id, summary, status, action, restsOn }) => ({
    id,
    summary,
    status,
    action,
    ...(restsOn ? { restsOn } : {}),
  }));
  if (items.length === 1) return { ...first, itemIds: [first.id], steps };
  const { before, after } = first.kind === "builder" ? combineBuilderRows(items) : combineFields(items);
  const places = uniquePlaces(items);
  const status = items.every((item) => item.status === first.status) ? first.status : "mixed";
  return {
    ...last,
    id: first.id,
    title: first.title,
    action: combinedAction(items),
    before,
    after,
    status,
    visible: items.some((item) => item.visible),
    ...(places.length ? { places } : {}),
    ...(items.some((item) => item.truncated) ? { truncated: true as const } : {}),
    itemIds: items.map((item) => item.id),
    steps,
  };
}

/**
 * One row per target (`targetId`), in the order each target first appears; a target's items in the order given
 * (the set's plan order). A creation (`post:new` until written) is its own target.
 */
export function combineByTarget(items: PublicChangeItem[]): CombinedRow[] {
  const groups = new Map<string, PublicChangeItem[]>();
  for (const item of items) {
    const key = item.targetId.endsWith(":new") ? `${item.targetId}#${item.id}` : `${item.kind}|${item.targetId}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()].map(combine);
}

/** States of an earlier change that leave a change planned on top of it nothing to be written on. */
const GONE = new Set(["denied", "failed", "undone"]);

/**
 * The waiting steps of a row that can no longer be approved (./chains.ts refuses them `409 not_applicable`): each
 * was planned on top of an earlier change to the same item that was denied, failed or was undone. Only Reject (or
 * asking again) is left for them.
 */
export function strandedSteps(row: CombinedRow): Array<{ step: CombinedStep; on: CombinedStep }> {
  const byId = new Map(row.steps.map((step) => [step.id, step]));
  const stranded: Array<{ step: CombinedStep; on: CombinedStep }> = [];
  for (const step of row.steps) {
    const on = step.restsOn ? byId.get(step.restsOn) : undefined;
    const blocked = on && (GONE.has(on.status) || stranded.some((s) => s.step.id === on.id));
    if (step.status === "pending" && on && blocked) stranded.push({ step, on });
  }
  return stranded;
}
