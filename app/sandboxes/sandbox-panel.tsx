"use client";
/** Starting, opening and deleting sandboxes (POST/DELETE /sessions, POST /sessions/:id/login). */
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { SandboxView } from "@/lib/sandbox/sandboxes";

const OPTION_NAMES: Record<string, string> = { blogname: "Site title", blogdescription: "Tagline" };
const KIND_NAMES: Record<string, string> = {
  option: "setting",
  wp_navigation: "navigation",
  menu: "menu",
  custom_css: "Additional CSS",
  global_styles: "styles",
  template_part: "template part",
  wp_template_part: "template part",
};

type Props = { sandboxes: SandboxView[]; sites: Array<{ id: string; label: string }> };

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

async function request(method: string, path: string, body?: unknown) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(json?.error?.message ?? `That did not work (HTTP ${response.status}).`);
  return json;
}

export function SandboxPanel({ sandboxes, sites }: Props) {
  const router = useRouter();
  const [source, setSource] = useState("");
  const [starting, setStarting] = useState(false);
  const [busyId, setBusyId] = useState<string>();
  const [error, setError] = useState<string>();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);

  const start = async () => {
    setStarting(true);
    setError(undefined);
    try {
      await request("POST", "/sessions", source ? { siteId: source } : {});
      router.refresh();
    } catch (cause) {
      setError((cause as Error).message);
    } finally {
      setStarting(false);
    }
  };
  const signIn = async (id: string) => {
    setBusyId(id);
    setError(undefined);
    try {
      const { login } = await request("POST", `/sessions/${id}/login`);
      window.open(login.url, "_blank", "noopener");
    } catch (cause) {
      setError((cause as Error).message);
    } finally {
      setBusyId(undefined);
    }
  };
  const remove = async (id: string) => {
    setBusyId(id);
    setError(undefined);
    try {
      await request("DELETE", `/sessions/${id}`);
      router.refresh();
    } catch (cause) {
      setError((cause as Error).message);
    } finally {
      setBusyId(undefined);
    }
  };

  return (
    <section data-testid="sandbox-panel">
      <form
        className="card"
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <label className="field">
          <span>Start from</span>
          <select value={source} onChange={(event) => setSource(event.target.value)} disabled={starting}>
            <option value="">A blank WordPress</option>
            {sites.map((site) => (
              <option key={site.id} value={site.id}>
                A copy of {site.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={starting}>
          {starting ? "Starting…" : "Start a sandbox"}
        </button>
        {starting ? (
          <p className="muted" role="status">
            {source ? "Starting WordPress and copying your site's pages, menus and styles…" : "Starting WordPress…"}
          </p>
        ) : null}
      </form>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {sandboxes.length === 0 ? <p>No sandbox open.</p> : null}
      <ul style={{ listStyle: "none", padding: 0 }}>
        {sandboxes.map((sandbox) => (
          <li key={sandbox.id} className="card" data-testid="sandbox">
            <p>
              <strong>{copiedSummary(sandbox)}</strong>
              <br />
              <small className="muted">
                {sandbox.status === "ready" ? "Ready" : "Starting…"} · {timeLeft(sandbox.expiresAt, now)}
              </small>
            </p>
            {sandbox.manifest?.items.length ? (
              <details>
                <summary>What was copied</summary>
                <ul>
                  {sandbox.manifest.items
                    .filter((item) => item.title && item.kind !== "attachment")
                    .map((item) => (
                      <li key={`${item.kind}-${item.sourceId}`}>
                        {OPTION_NAMES[item.title ?? ""] ?? item.title}{" "}
                        <small className="muted">({KIND_NAMES[item.kind] ?? item.kind})</small>
                      </li>
                    ))}
                </ul>
              </details>
            ) : null}
            <p>
              <a className="button" href={sandbox.previewUrl} target="_blank" rel="noreferrer">
                Open
              </a>{" "}
              <button
                type="button"
                className="secondary"
                disabled={busyId === sandbox.id}
                onClick={() => void signIn(sandbox.id)}
              >
                Sign in to its wp-admin
              </button>{" "}
              <button
                type="button"
                className="link"
                disabled={busyId === sandbox.id}
                onClick={() => void remove(sandbox.id)}
              >
                Delete
              </button>
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
