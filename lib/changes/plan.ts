/**
 * Plans: what a write would change, item by item, before anything is written. Each planned item carries the
 * batch change the plugin will get (with the version it was planned against), the diff as the owner reads it, and
 * whether visitors would see it (then, live, it waits for the owner's click: docs/change-sets.md).
 * The same module computes the reverse of a written item for undo.
 */
import type { ChangeItem, ItemChange, VisiblePlace } from "@/lib/db/schema";
import { DESIGN_POST_TYPES, OPTION_LABELS, POST_FIELDS } from "@/lib/vocabulary";
import type { SiteItem } from "@/lib/sites/items";

export type PlannedItem = {
  kind: string;
  ref: string;
  action: ItemChange["action"];
  title: string;
  summary: string;
  /** The diff as the owner reads it: only the fields that change, by their field names. */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /**
   * Whether visitors would see it: decided by the site when the plan is seen (lib/agent/call-operation.ts); what a
   * planner sets here is only its first guess, never the basis of the click.
   */
  visible: boolean;
  /** Where visitors would see it, as the site named the places (set with `visible`). */
  places?: VisiblePlace[];
  change: ItemChange;
  beforeState: Record<string, unknown> | null;
  versionRead: string | null;
};

/** Statuses visitors can see (scheduled posts will be seen without anyone acting again). */
const VISIBLE_STATUSES = new Set(["publish", "future"]);

/** The contract's `kind` of an item (`page`, `post`, `setting`, `custom_css`, `menu`, `navigation`...). */
export function kindOf(ref: string, state: Record<string, unknown> | null, type?: string): string {
  const [prefix] = ref.split(":");
  if (prefix === "option") return "setting";
  if (prefix === "custom_css" || prefix === "menu" || prefix === "term" || prefix === "seo") return prefix;
  // A page builder's page (`elementor:<id>`): the contract's kind `builder` (API.md, "Page builders").
  if (prefix === "elementor") return "builder";
  // Elementor's kit (global colours and fonts): a design item, seen site-wide (docs/page-builders.md, "Kit").
  if (prefix === "elementor_kit") return "global_styles";
  const postType = type ?? (typeof state?.type === "string" ? state.type : "post");
  if (postType === "attachment") return "media";
  return DESIGN_POST_TYPES[postType] ?? postType;
}

/** Kinds visitors always see: settings and the site's design. */
const ALWAYS_VISIBLE = new Set(["setting", "custom_css", "menu", ...Object.values(DESIGN_POST_TYPES)]);

/**
 * Whether visitors would see the change: any design or setting change; for content, when the item is visible
 * before or after (editing a published page, publishing a draft, trashing a published page).
 */
export function isVisibleChange(
  kind: string,
  beforeState: Record<string, unknown> | null,
  afterStatus: unknown,
): boolean {
  if (ALWAYS_VISIBLE.has(kind)) return true;
  const before = typeof beforeState?.status === "string" ? beforeState.status : undefined;
  const after = typeof afterStatus === "string" ? afterStatus : before;
  return (before !== undefined && VISIBLE_STATUSES.has(before)) || (after !== undefined && VISIBLE_STATUSES.has(after));
}

const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields of `next` that differ from `current`, with their old and new values. */
function diffFields(current: Record<string, unknown>, next: Record<string, unknown>) {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    if (!equal(current[key], value)) {
      before[key] = current[key] ?? null;
      after[key] = value;
    }
  }
  return { before, after };
}

/** A change to an existing post, page or design post (only fields that actually change are sent). */
export function planPostUpdate(current: SiteItem, fields: Record<string, unknown>, summary: string): PlannedItem {
  if (!current.exists || !current.state) throw new Error(`${current.ref} does not exist.`);
  const kind = kindOf(current.ref, current.state);
  const { before, after } = diffFields(current.state, fields);
  return {
    kind,
    ref: current.ref,
    action: "update",
    title: current.title,
    summary,
    before,
    after,
    visible: isVisibleChange(kind, current.state, after.status),
    change: { ref: current.ref, expect: current.version, action: "update", fields: after },
    beforeState: current.state,
    versionRead: current.version,
  };
}

export function planPostCreate(type: string, fields: Record<string, unknown>, summary: string): PlannedItem {
  const kind = kindOf("post:new", null, type);
  const title = typeof fields.title === "string" ? fields.title : "";
  return {
    kind,
    ref: "post:new",
    action: "create",
    title,
    summary,
    before: null,
    after: fields,
    visible: isVisibleChange(kind, null, fields.status ?? "draft"),
    change: { ref: "post:new", expect: null, action: "create", fields: { type, ...fields } },
    beforeState: null,
    versionRead: null,
  };
}

export function planPostTrash(current: SiteItem, summary: string): PlannedItem {
  if (!current.exists || !current.state) throw new Error(`${current.ref} does not exist.`);
  const kind = kindOf(current.ref, current.state);
  return {
    kind,
    ref: current.ref,
    action: "trash",
    title: current.title,
    summary,
    before: { status: current.state.status },
    after: { status: "trash" },
    visible: isVisibleChange(kind, current.state, "trash"),
    change: { ref: current.ref, expect: current.version, action: "trash" },
    beforeState: current.state,
    versionRead: current.version,
  };
}

/** Options, custom CSS, menus: the whole value is replaced. */
export function planValueUpdate(
  current: SiteItem,
  fields: Record<string, unknown>,
  summary: string,
  title = current.title,
): PlannedItem {
  if (!current.exists || !current.state) throw new Error(`${current.ref} does not exist.`);
  const kind = kindOf(current.ref, current.state);
  const { before, after } = diffFields(current.state, fields);
  return {
    kind,
    ref: current.ref,
    action: "update",
    title: kind === "setting" ? (OPTION_LABELS[current.ref.slice("option:".length)] ?? title) : title,
    summary,
    before,
    after,
    visible: true,
    change: { ref: current.ref, expect: current.version, action: "update", fields: after },
    beforeState: current.state,
    versionRead: current.version,
  };
}

/** WordPress's `post_date_gmt` of a draft whose date floats (none chosen yet). */
const FLOATING_DATE = "0000-00-00 00:00:00";

/**
 * The change that puts a written item back as it was, expecting the version our write left. Only the fields that
 * our write changed are sent back, so nothing else of the item passes through WordPress's filters again.
 */
export function reverseChange(
  item: Pick<ChangeItem, "ref" | "action" | "beforeState" | "afterState" | "versionAfter">,
): ItemChange {
  const expect = item.versionAfter;
  if (item.action === "create") return { ref: item.ref, expect, action: "delete" };
  const before = item.beforeState ?? {};
  const after = item.afterState ?? {};
  const fields: Record<string, unknown> = {};
  const keys = item.ref.startsWith("post:") ? POST_FIELDS : Object.keys(before);
  for (const key of keys) {
    if (!equal(before[key], after[key])) fields[key] = before[key];
  }
  // A floating draft (no date chosen: `date`, the GMT one, is zero) has WordPress set its local date to "now" on every
  // save, so the undo's own save would move it: whenever the undo writes the post at all, its local date goes back
  // too, even when the write being undone left it as it was (made in the same second as the save before it). The plugin
  // now keeps a floating draft's date on such a save itself; this stays for sites whose plugin is older.
  if (
    item.ref.startsWith("post:") &&
    Object.keys(fields).length > 0 &&
    before.date === FLOATING_DATE &&
    typeof before.date_local === "string" &&
    !("date_local" in fields)
  ) {
    fields.date_local = before.date_local;
  }
  if (item.action === "trash") return { ref: item.ref, expect, action: "restore", fields };
  return { ref: item.ref, expect, action: "update", fields };
}
