"use client";
/** Starting, opening and deleting sandboxes (POST/DELETE /sessions, POST /sessions/:id/login). */
import { useState } from "react";
import type { SandboxView } from "@/lib/sandbox/sandboxes";
import { SandboxCard } from "./sandbox-card";
import { useNow, useSandboxActions } from "./use-sandbox-actions";
import { useHydrated } from "@/app/use-hydrated";

type Props = { sandboxes: SandboxView[]; sites: Array<{ id: string; label: string }> };

function StartForm({
  sites,
  starting,
  onStart,
}: {
  sites: Props["sites"];
  starting: boolean;
  onStart(siteId: string): void;
}) {
  const [source, setSource] = useState("");
  // Before hydration the submit would reload the page and lose the click: the button waits (use-hydrated.ts).
  const hydrated = useHydrated();
  return (
    <form
      className="card"
      onSubmit={(event) => {
        event.preventDefault();
        onStart(source);
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
      <button type="submit" disabled={starting || !hydrated}>
        {starting ? "Starting…" : "Start a sandbox"}
      </button>
      {starting ? (
        <p className="muted" role="status">
          {source ? "Starting WordPress and copying your site's pages, menus and styles…" : "Starting WordPress…"}
        </p>
      ) : null}
    </form>
  );
}

export function SandboxPanel({ sandboxes, sites }: Props) {
  const actions = useSandboxActions();
  const now = useNow();
  return (
    <section data-testid="sandbox-panel">
      <StartForm sites={sites} starting={actions.starting} onStart={(siteId) => void actions.start(siteId)} />
      {actions.error ? (
        <p className="error" role="alert">
          {actions.error}
        </p>
      ) : null}
      {sandboxes.length === 0 ? <p>No sandbox open.</p> : null}
      <ul style={{ listStyle: "none", padding: 0 }}>
        {sandboxes.map((sandbox) => (
          <SandboxCard
            key={sandbox.id}
            sandbox={sandbox}
            now={now}
            busy={actions.busyId === sandbox.id}
            onSignIn={() => void actions.signIn(sandbox.id)}
            onDelete={() => void actions.remove(sandbox.id)}
          />
        ))}
      </ul>
    </section>
  );
}
