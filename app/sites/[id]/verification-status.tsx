"use client";
/**
 * What the look at the live site found after a write, Apply or Undo (docs/verification.md), on the chat's card, the
 * Changes page and the review page: "Checking the live site…" while it runs (polled, bounded), "Verified on the live
 * site" with the address, or "Not visible yet" with the reason in words and one click to undo.
 */
import { useEffect, useState } from "react";
import type { ChangeSetVerification } from "@/lib/db/schema";
import { useHydrated } from "@/app/use-hydrated";

const POLL_MS = 1500;
const POLL_LIMIT = 30;

type Props = {
  siteId: string;
  changeSetId: string;
  verification?: ChangeSetVerification | null;
  /** Keep asking while the look is pending (or not recorded yet, right after a click). */
  poll?: boolean;
  /** Undo offered when the change is not visible (live sets that still have written items). */
  canUndo?: boolean;
  onUndone?: () => void;
};

/** The change set's verification, asked for again while it is pending; `null` when there is nothing to look at. */
function useVerification(base: string, initial: ChangeSetVerification | null | undefined, poll: boolean) {
  const [current, setCurrent] = useState<ChangeSetVerification | null | undefined>(initial);
  useEffect(() => setCurrent(initial), [initial]);
  const status = current === null ? "none" : current?.status;
  useEffect(() => {
    if (status !== "pending" && !(poll && status === undefined)) return;
    let stopped = false;
    let tries = 0;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      if (stopped || tries++ >= POLL_LIMIT) return;
      try {
        const res = await fetch(base, { headers: { accept: "application/json" } });
        const body = (await res.json()) as { changeSet?: { verification?: ChangeSetVerification } };
        const found = body.changeSet?.verification;
        // No verification after a while: the change set has nothing a visitor sees to look at (a draft).
        if (!stopped && body.changeSet && !found && tries > 1) return setCurrent(null);
        if (!stopped && found && found.status !== "pending") return setCurrent(found);
      } catch {
        // the next tick asks again
      }
      if (!stopped) timer = setTimeout(tick, POLL_MS);
    };
    timer = setTimeout(tick, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [poll, status, base]);
  return current;
}

/** Undo of the whole change set, with its outcome in words. */
function useUndo(base: string, onUndone?: () => void) {
  const [state, setState] = useState<"idle" | "busy" | "done" | { error: string }>("idle");
  const run = async () => {
    setState("busy");
    try {
      const res = await fetch(`${base}/undo`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: "{}",
      });
      const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
      if (!res.ok) return setState({ error: body.error?.message ?? "Undo failed." });
      setState("done");
      onUndone?.();
    } catch {
      setState({ error: "Sitewright could not be reached. Try again." });
    }
  };
  return { state, run };
}

const Address = ({ url }: { url: string }) => (
  <a href={url} target="_blank" rel="noreferrer noopener">
    {url}
  </a>
);

function NotSeen({
  current,
  undo,
  canUndo,
}: {
  current: ChangeSetVerification;
  undo: ReturnType<typeof useUndo>;
  canUndo?: boolean;
}) {
  const { state } = undo;
  // Before hydration a click would be lost: the button waits (use-hydrated.ts).
  const hydrated = useHydrated();
  return (
    <div>
      <p>
        <strong>
          {current.status === "not_visible" ? "Not visible yet on the live site" : "Could not check the live site"}
        </strong>
      </p>
      <ul>
        {current.urls
          .filter((u) => u.status !== "verified")
          .map((u) => (
            <li key={u.url}>
              <Address url={u.url} />
              {u.reason ? `: ${u.reason}` : null}
            </li>
          ))}
      </ul>
      {current.status === "not_visible" && canUndo && state !== "done" ? (
        <button
          type="button"
          className="secondary"
          onClick={() => void undo.run()}
          disabled={state === "busy" || !hydrated}
        >
          {state === "busy" ? "Undoing…" : "Undo this change"}
        </button>
      ) : null}
      {state === "done" ? <p>Undone.</p> : null}
      {typeof state === "object" ? <p role="alert">{state.error}</p> : null}
    </div>
  );
}

export function VerificationStatus({ siteId, changeSetId, verification, poll = false, canUndo, onUndone }: Props) {
  const base = `/sites/${siteId}/changes/${changeSetId}`;
  const current = useVerification(base, verification, poll);
  const undo = useUndo(base, onUndone);
  if (current === null) return null;
  if (!current)
    return poll ? (
      <p className="muted" role="status">
        Checking the live site…
      </p>
    ) : null;
  return (
    <div role="status" data-testid="verification" data-status={current.status}>
      {current.status === "pending" ? <p className="muted">Checking the live site…</p> : null}
      {current.status === "verified" ? (
        <p>
          <strong>Verified on the live site</strong>
          {current.urls.length ? ": " : null}
          {current.urls.map((u) => (
            <Address key={u.url} url={u.url} />
          ))}
        </p>
      ) : null}
      {current.status === "not_visible" || current.status === "unreachable" ? (
        <NotSeen current={current} undo={undo} canUndo={canUndo} />
      ) : null}
    </div>
  );
}
