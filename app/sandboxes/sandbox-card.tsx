/** One open sandbox: what was copied into it, how long it has left, and Open / Sign in / Delete. */
import type { SandboxView } from "@/lib/sandbox/sandboxes";
import { OPTION_LABELS } from "@/lib/vocabulary";

const KIND_NAMES: Record<string, string> = {
  option: "setting",
  wp_navigation: "navigation",
  menu: "menu",
  custom_css: "Additional CSS",
  global_styles: "styles",
  template_part: "template part",
  wp_template_part: "template part",
};

function timeLeft(expiresAt: string, now: number): string {
  const minutes = Math.max(0, Math.ceil((Date.parse(expiresAt) - now) / 60_000));
  if (minutes === 0) return "expiring now";
  return minutes === 1 ? "1 minute left" : `${minutes} minutes left`;
}

function copiedSummary(sandbox: SandboxView): string {
  const items = sandbox.manifest?.items ?? [];
  if (!sandbox.siteId || items.length === 0) return "Blank WordPress";
  const count = (kinds: string[]) => items.filter((item) => kinds.includes(item.kind)).length;
  const parts = [
    [count(["page"]), "page"],
    [count(["post"]), "post"],
    [count(["attachment"]), "media file"],
    [count(["menu", "wp_navigation"]), "menu"],
  ] as const;
  return `Copy of ${sandbox.manifest?.sourceUrl ?? "your site"}: ${parts
    .filter(([n]) => n > 0)
    .map(([n, word]) => `${n} ${word}${n === 1 ? "" : "s"}`)
    .join(", ")}, plus styles and settings`;
}

function CopiedItems({ sandbox }: { sandbox: SandboxView }) {
  if (!sandbox.manifest?.items.length) return null;
  return (
    <details>
      <summary>What was copied</summary>
      <ul>
        {sandbox.manifest.items
          .filter((item) => item.title && item.kind !== "attachment")
          .map((item) => (
            <li key={`${item.kind}-${item.sourceId}`}>
              {OPTION_LABELS[item.title ?? ""] ?? item.title}{" "}
              <small className="muted">({KIND_NAMES[item.kind] ?? item.kind})</small>
            </li>
          ))}
      </ul>
    </details>
  );
}

export function SandboxCard({
  sandbox,
  now,
  busy,
  onSignIn,
  onDelete,
}: {
  sandbox: SandboxView;
  now: number;
  busy: boolean;
  onSignIn(): void;
  onDelete(): void;
}) {
  return (
    <li className="card" data-testid="sandbox">
      <p>
        <strong>{copiedSummary(sandbox)}</strong>
        <br />
        <small className="muted">
          {sandbox.status === "ready" ? "Ready" : "Starting…"} · {timeLeft(sandbox.expiresAt, now)}
        </small>
      </p>
      <CopiedItems sandbox={sandbox} />
      <p>
        <a className="button" href={sandbox.previewUrl} target="_blank" rel="noreferrer">
          Open
        </a>{" "}
        <button type="button" className="secondary" disabled={busy} onClick={onSignIn}>
          Sign in to its wp-admin
        </button>{" "}
        <button type="button" className="link" disabled={busy} onClick={onDelete}>
          Delete
        </button>
      </p>
    </li>
  );
}
