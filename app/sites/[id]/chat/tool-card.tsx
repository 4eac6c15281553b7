"use client";
/** One card per tool call: what the assistant did, on which page, before → after for changes, approve/deny. */
import { getToolName, type DynamicToolUIPart, type ToolUIPart } from "ai";
import styles from "./chat.module.css";

const LABELS: Record<string, string> = {
  get_site_info: "Read the site's information",
  list_pages: "Looked through the pages",
  list_posts: "Looked through the posts",
  read_page: "Read a page",
  list_media: "Looked through the media library",
  read_menus: "Read the menus",
  read_site_settings: "Read the site settings",
  create_draft: "Create a draft",
  update_page: "Edit a page",
  replace_block: "Replace a block",
  insert_block: "Insert a block",
  set_site_identity: "Change the site title or tagline",
  set_featured_image: "Set a featured image",
  update_custom_css: "Change the custom CSS",
  publish_page: "Publish",
  trash_page: "Move to the trash",
  change_menu: "Change a menu",
};

type Output =
  | { ok: true; summary: string; target?: { type: string; id?: number; title?: string; link?: string }; before?: unknown; after?: unknown; flagged?: string }
  | { ok: false; error: string; code: string };

export type ToolPart = ToolUIPart | DynamicToolUIPart;

function describeTarget(input: unknown): string | undefined {
  const value = (input ?? {}) as { type?: string; id?: number; menuId?: number };
  if (value.id) return `${value.type ?? "page"} ${value.id}`;
  if (value.menuId) return `menu ${value.menuId}`;
  return undefined;
}

function show(value: unknown): string {
  if (value === undefined || value === null || value === "") return "(empty)";
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return text.length > 1500 ? `${text.slice(0, 1500)}…` : text;
}

function BeforeAfter({ before, after }: { before?: unknown; after?: unknown }) {
  if (before === undefined && after === undefined) return null;
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return (
    <table className={styles.diff} data-testid="before-after">
      <thead>
        <tr>
          <th />
          <th>Before</th>
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <tr key={key}>
            <th>{key}</th>
            <td>
              <pre>{key in b ? show(b[key]) : "—"}</pre>
            </td>
            <td>
              <pre>{key in a ? show(a[key]) : "—"}</pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ToolCard({ part, onAnswer }: { part: ToolPart; onAnswer: (id: string, approved: boolean) => void }) {
  const name = getToolName(part);
  const label = LABELS[name] ?? `Asked for “${name}”`;
  const target = describeTarget(part.input);
  const heading = (
    <div className={styles.toolHead}>
      <strong>{label}</strong>
      {target ? <span className="muted"> · {target}</span> : null}
    </div>
  );

  switch (part.state) {
    case "input-streaming":
    case "input-available":
      return (
        <div className={styles.tool} data-testid="tool-card" data-state="running">
          {heading}
          <span className="muted">Working…</span>
        </div>
      );
    case "approval-requested":
      return (
        <div className={`${styles.tool} ${styles.approval}`} data-testid="tool-card" data-state="approval">
          {heading}
          <p>This changes your live site and needs your approval. Exactly this will run:</p>
          <pre>{show(part.input)}</pre>
          <div className={styles.actions}>
            <button type="button" className="danger" onClick={() => onAnswer(part.approval.id, true)}>
              Approve
            </button>
            <button type="button" className="secondary" onClick={() => onAnswer(part.approval.id, false)}>
              Deny
            </button>
          </div>
        </div>
      );
    case "approval-responded":
      return (
        <div className={styles.tool} data-testid="tool-card" data-state="answered">
          {heading}
          <span className="muted">{part.approval.approved ? "Approved — running…" : "Denied."}</span>
        </div>
      );
    case "output-denied":
      return (
        <div className={styles.tool} data-testid="tool-card" data-state="denied">
          {heading}
          <span className="warn">Not done: {part.approval.reason ?? "you denied it."}</span>
        </div>
      );
    case "output-error":
      return (
        <div className={styles.tool} data-testid="tool-card" data-state="error">
          {heading}
          <span className="error">{part.errorText}</span>
        </div>
      );
    case "output-available": {
      const output = part.output as Output;
      if (!output.ok) {
        return (
          <div className={styles.tool} data-testid="tool-card" data-state="error">
            {heading}
            <span className="error">{output.error}</span>
          </div>
        );
      }
      return (
        <div className={styles.tool} data-testid="tool-card" data-state="done">
          {heading}
          <span className="ok">{output.summary}</span>
          {output.target?.link ? (
            <>
              {" "}
              <a href={output.target.link} target="_blank" rel="noreferrer">
                View
              </a>
            </>
          ) : null}
          {output.flagged ? (
            <p className="warn" role="note">
              This content contains text aimed at the assistant (“{output.flagged}”). It was ignored; changes in this conversation
              now need your approval.
            </p>
          ) : null}
          <BeforeAfter before={output.before} after={output.after} />
        </div>
      );
    }
  }
}
