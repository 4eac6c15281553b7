/**
 * What a change does, in the owner's words: per item, the page or setting by its name, and what changes in it —
 * block by block for page content, field by field otherwise. Used on approval cards, tool cards and the Changes page.
 */
import { parseBlocks } from "@/lib/agent/blocks";
import type { CombinedRow } from "@/lib/changes/combined";
import { describeChange, markupChanges } from "@/lib/changes/markup-diff";
import { placesSentence } from "@/lib/changes/places";
import type { VisiblePlace } from "@/lib/db/schema";
import { blockText } from "./card-words";
import styles from "./change-diff.module.css";

export type ChangeItemView = {
  id: string;
  kind: string;
  /** The site object it changes (`post:12`, `option:blogname`). */
  targetId?: string;
  title: string;
  action: string;
  before: unknown;
  after: unknown;
  status: string;
  /** Where visitors would see it, as the site named the places. */
  places?: VisiblePlace[];
  /** The earlier change to the same item it was planned on top of (lib/changes/chains.ts). */
  restsOn?: string;
};

const KINDS: Record<string, string> = {
  page: "Page",
  post: "Post",
  setting: "Setting",
  custom_css: "Additional CSS",
  menu: "Menu",
  navigation: "Navigation",
  template: "Template",
  template_part: "Template part",
  global_styles: "Site styles",
  media: "Media",
  term: "Category or tag",
  seo: "SEO settings",
  builder: "Elementor page",
};

const ACTIONS: Record<string, string> = {
  update: "Change",
  create: "Create",
  trash: "Move to the trash",
  restore: "Restore",
  delete: "Delete",
};

const FIELDS: Record<string, string> = {
  title: "Title",
  content: "Content",
  excerpt: "Excerpt",
  status: "Visibility",
  slug: "Address",
  parent: "Parent page",
  menu_order: "Order",
  featured_media: "Featured image",
  date: "Date",
  css: "CSS",
  name: "Name",
  items: "Items",
  categories: "Categories",
  tags: "Tags",
  alt: "Alt text",
  description: "Description",
  taxonomy: "Kind",
  focusKeyword: "Focus keyword",
  canonical: "Canonical address",
  noindex: "Kept out of search results",
  file: "File",
  type: "Type",
  size: "Size in pixels",
};

/** Where a field means something else for a kind: an SEO title is not the page's title; an image's caption is its excerpt. */
const KIND_FIELDS: Record<string, Record<string, string>> = {
  seo: { title: "SEO title", description: "SEO description" },
  media: { excerpt: "Caption", content: "Description" },
};

export const fieldLabel = (kind: string, field: string) => KIND_FIELDS[kind]?.[field] ?? FIELDS[field] ?? field;

const STATUSES: Record<string, string> = {
  publish: "Published",
  future: "Scheduled",
  draft: "Draft",
  pending: "Pending review",
  private: "Private",
  trash: "In the trash",
};

/** What a global styles row without a value means (describeStylesChange's names). */
const STYLE_DEFAULTS: Record<string, string> = {
  "Style variation": "none",
  "Body font": "the theme's default",
  "Headings font": "the theme's default",
};

function words(field: string, value: unknown): string {
  if (field === "noindex")
    return value === true ? "Yes" : value === false ? "No (indexed)" : "The SEO plugin's default";
  if ((value === undefined || value === null) && field in STYLE_DEFAULTS) return STYLE_DEFAULTS[field]!;
  if (value === undefined || value === null || value === "") return "(empty)";
  if (field === "taxonomy") return value === "post_tag" ? "Tag" : "Category";
  if ((field === "categories" || field === "tags") && Array.isArray(value))
    return value.length ? value.join(", ") : "(none)";
  if (field === "status" && typeof value === "string") return STATUSES[value] ?? value;
  if (field === "featured_media") return Number(value) > 0 ? `image #${value}` : "none";
  if (field === "date" && value === "0000-00-00 00:00:00") return "not set";
  if (typeof value === "string") return value.length > 2000 ? `${value.slice(0, 2000)}…` : value;
  if (field === "items" && Array.isArray(value)) return menuLines(value as MenuItem[]);
  return JSON.stringify(value, null, 2);
}

type MenuItem = { title?: string; url?: string; object?: string; parent?: number };

/** A menu as the owner sees it: one line per item, nested items indented, links to pages named as such. */
function menuLines(items: MenuItem[]): string {
  if (items.length === 0) return "(no items)";
  const depth = (index: number): number => {
    const parent = items[index]?.parent ?? 0;
    return parent > 0 && parent - 1 !== index ? 1 + depth(parent - 1) : 0;
  };
  return items
    .map((item, index) => {
      const label = item.title || (item.object === "page" ? "(the page's title)" : "(untitled)");
      const where = item.url ? ` → ${item.url}` : item.object === "page" ? " → a page" : "";
      return `${"    ".repeat(depth(index))}${label}${where}`;
    })
    .join("\n");
}

type Block = { source: string; name: string | null };
const blocksOf = (content: string): Block[] =>
  parseBlocks(content)
    .map((b) => ({ source: content.slice(b.start, b.end), name: b.name }))
    .filter((b) => b.name !== null || b.source.trim() !== "");

/** Blocks that differ, found between the common first and last blocks of both versions. */
function BlockDiff({ before, after }: { before: string; after: string }) {
  const a = blocksOf(before);
  const b = blocksOf(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start]!.source === b[start]!.source) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1]!.source === b[endB - 1]!.source) {
    endA--;
    endB--;
  }
  const removed = a.slice(start, endA);
  const added = b.slice(start, endB);
  const rows = Math.max(removed.length, added.length);
  if (rows === 0) return <p className="muted">Only invisible markup changes.</p>;
  return (
    <ol className={styles.blocks} data-testid="block-diff">
      {Array.from({ length: rows }, (_, i) => {
        const old = removed[i];
        const next = added[i];
        const name = (next ?? old)!.name?.replace(/^core\//, "") ?? "html";
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: the block's position is what names it in this diff
          <li key={start + i} value={start + i + 1}>
            <span className="muted">
              Block {start + i + 1} ({name}){!old ? " — new" : !next ? " — removed" : ""}
            </span>
            {old ? <del>{blockText(old.source, old.name)}</del> : null}
            {next ? <ins>{blockText(next.source, next.name)}</ins> : null}
            <MarkupChanges before={old?.source ?? ""} after={next?.source ?? ""} />
          </li>
        );
      })}
    </ol>
  );
}

/**
 * What the words do not show: changed addresses, embeds, forms, scripts, block settings, shortcodes; and when none
 * of that nor the text explains a change, the raw markup side by side. Every byte that is written is shown.
 */
function MarkupChanges({ before, after }: { before: string; after: string }) {
  if (before === after) return null;
  const changes = markupChanges(before, after);
  const sameWords = before !== "" && after !== "" && blockText(before, null) === blockText(after, null);
  return (
    <>
      {changes.length > 0 ? (
        <ul className={styles.markup} data-testid="markup-changes">
          {changes.map((change) => (
            <li key={describeChange(change)}>{describeChange(change)}</li>
          ))}
        </ul>
      ) : null}
      {sameWords && changes.length === 0 ? (
        <details className={styles.raw} open data-testid="raw-markup">
          <summary>Markup changes (the words stay the same)</summary>
          <del>
            <code>{before}</code>
          </del>
          <ins>
            <code>{after}</code>
          </ins>
        </details>
      ) : null}
    </>
  );
}

/** A colour value (a hex code, rgb(), hsl()) is shown as the colour itself beside its code. */
const COLOUR = /^(#[0-9a-f]{3,8}|(rgb|hsl)a?\([\d\s.,%/]+\))$/i;

function Swatch({ value }: { value: unknown }) {
  if (typeof value !== "string" || !COLOUR.test(value.trim())) return null;
  return (
    <span className={styles.swatch} style={{ background: value.trim() }} data-testid="swatch" aria-hidden="true" />
  );
}

type BuilderRowView = { path: string; elementId: string; setting: string; before: unknown; after: unknown };

/** An Elementor page's change, one row per widget setting or element: "Hero › Heading · title: old → new". */
function BuilderRows({ item }: { item: ChangeItemView }) {
  const rows = ((item.after as { elements?: unknown } | null)?.elements ?? []) as BuilderRowView[];
  return (
    <dl className={styles.fields}>
      {rows.map((row) => (
        <div key={`${row.elementId}-${row.setting}-${String(row.after)}`} data-testid="builder-row">
          <dt>
            {row.path}
            {row.setting ? ` · ${row.setting}` : ""}
          </dt>
          <dd>
            {row.before !== null ? <del>{words(row.setting, row.before)}</del> : null}
            {row.after !== null ? <ins>{words(row.setting, row.after)}</ins> : null}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function FieldRows({ item }: { item: ChangeItemView }) {
  if (item.kind === "builder") return <BuilderRows item={item} />;
  const before = (item.before ?? {}) as Record<string, unknown>;
  const after = (item.after ?? {}) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (f) => !(item.action === "create" && f === "type" && item.kind !== "media") && f !== "preview",
  );
  return (
    <dl className={styles.fields}>
      {fields.map((field) => {
        const label = field === "value" ? item.title : fieldLabel(item.kind, field);
        const isMarkup = field === "content" && item.kind !== "media";
        if (isMarkup && (typeof before.content === "string" || typeof after.content === "string")) {
          return (
            <div key={field}>
              <dt>{label}</dt>
              <dd>
                <BlockDiff before={String(before.content ?? "")} after={String(after.content ?? "")} />
              </dd>
            </div>
          );
        }
        return (
          <div key={field}>
            <dt>{label}</dt>
            <dd>
              {field in before ? (
                <del>
                  <Swatch value={before[field]} />
                  {words(field, before[field])}
                </del>
              ) : null}
              {field in after ? (
                <ins>
                  <Swatch value={after[field]} />
                  {words(field, after[field])}
                </ins>
              ) : null}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

/** An uploaded file's preview: the cleaned upload as the app serves it to its owner (never a third-party address). */
function MediaPreview({ item }: { item: ChangeItemView }) {
  const after = (item.after ?? {}) as { preview?: unknown; type?: unknown; alt?: unknown };
  const preview = typeof after.preview === "string" && /^\/sites\/[^/]+\/uploads\/[^/]+$/.test(after.preview);
  if (!preview || typeof after.type !== "string" || !after.type.startsWith("image/")) return null;
  return (
    // biome-ignore lint/performance/noImgElement: the owner's own upload, served by the app, not a static asset
    <img
      className={styles.preview}
      src={after.preview as string}
      alt={typeof after.alt === "string" && after.alt ? after.alt : "The uploaded image"}
      data-testid="media-preview"
    />
  );
}

export function ChangeItemDiff({ item }: { item: ChangeItemView }) {
  const kind = KINDS[item.kind] ?? item.kind;
  const name = item.kind === "setting" ? "" : ` “${item.title || "untitled"}”`;
  return (
    <div className={styles.change} data-testid="change-item" data-status={item.status}>
      <div>
        <strong>
          {ACTIONS[item.action] ?? item.action} {kind.toLowerCase()}
          {name}
        </strong>
        {item.kind === "setting" ? <span> · {item.title}</span> : null}
      </div>
      {item.places?.length ? (
        <p className="muted" data-testid="visible-places">
          {placesSentence(item.places)}
        </p>
      ) : null}
      {item.kind === "media" ? <MediaPreview item={item} /> : null}
      <FieldRows item={item} />
    </div>
  );
}

/** A step's state in words, beside its summary. */
const STEP_STATUS: Record<string, string> = {
  pending: "waits for approval",
  writing: "being written",
  applied: "written",
  denied: "denied",
  failed: "not written",
  undoing: "being undone",
  undone: "undone",
};

/**
 * The changes a combined row stands for, in the order they were planned and are written: each was planned on the
 * state the ones before it leave, so the row above shows the item before the first and after the last.
 */
export function CombinedSteps({ row, note }: { row: CombinedRow; note?: string }) {
  if (row.steps.length < 2) return null;
  return (
    <div className={styles.steps} data-testid="combined-steps">
      <p className="muted">
        {row.steps.length} changes to “{row.title || "untitled"}”, shown as one: before the first, after the last.
        {note ? ` ${note}` : ""}
      </p>
      <ol>
        {row.steps.map((step) => (
          <li key={step.id} data-status={step.status}>
            {step.summary} <span className="muted">({STEP_STATUS[step.status] ?? step.status})</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** A change set's diff with one row per target (lib/changes/combined.ts); `note` says how a combined row is clicked. */
export function CombinedDiff({ rows, note }: { rows: CombinedRow[]; note?: string }) {
  return (
    <div className={styles.changes} data-testid="change-diff">
      {rows.map((row) => (
        <div key={row.id} data-testid="diff-row" data-items={row.itemIds.length}>
          <ChangeItemDiff item={row} />
          <CombinedSteps row={row} note={note} />
        </div>
      ))}
    </div>
  );
}

export function ChangeDiff({ items }: { items: ChangeItemView[] }) {
  return (
    <div className={styles.changes} data-testid="change-diff">
      {items.map((item) => (
        <ChangeItemDiff key={item.id} item={item} />
      ))}
    </div>
  );
}
