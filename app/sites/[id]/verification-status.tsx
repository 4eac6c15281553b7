"use client";
/**
 * What the look at the live site found after a write, Apply or Undo (docs/verification.md), on the chat's card, the
 * Changes page and the review page: "Checking the live site…" while it runs (polled, bounded), "Verified on the live
 * site" with the address, or "Not visible yet" with the reason in words and one click to undo.
 */
import { useEffect, useState } from "react";
import type { ChangeSetVerification } from "@/lib/db/schema";

const POLL_MS = 1500;
const POLL_LIMIT = 30;

type Props = {
  siteId: string;
  changeSetId: string;
  verification?: ChangeSetVerification | null;
  /** Keep asking while the look is pending (or not started yet, right after a click). */
  poll?: boolean;
  /** Undo offered when the change is not visible (live sets that still have written items). */
  canUndo?: boolean;
  onUndone?: () => void;
};

export function VerificationStatus({ siteId, changeSetId, verification, poll = false, canUndo, onUndone }: Props) {
  const [current, setCurrent] = useState<ChangeSetVerification | null | undefined>(verification);
  const [undo, setUndo] = useState<"idle" | "busy" | "done" | string>("idle");
  // The look found nothing a visitor sees to check (a draft): nothing to show.
  const [nothing, setNothing] = useState(false);

  useEffect(() => setCurrent(verification), [verification]);

  const status = current?.status;
  useEffect(() => {
    // Ask while the look runs, or right after a click before it is recorded.
    if (status !== "pending" && !(poll && status === undefined)) return;
    let stopped = false;
    let tries = 0;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      if (stopped || tries++ >= POLL_LIMIT) return;
      try {
        const res = await fetch(`/sites/${siteId}/changes/${changeSetId}`, { headers: { accept: "application/json" } });
        const body = (await res.json()) as { changeSet?: { verification?: ChangeSetVerification } };
        const found = body.changeSet?.verification;
        if (!stopped && body.changeSet && !found && tries > 1) {
          setNothing(true);
          return;
        }
        if (!stopped && found && found.status !== "pending") {
          setCurrent(found);
          return;
        }
      } catch {
        // the next tick tries again
      }
      if (!stopped) timer = setTimeout(tick, POLL_MS);
    };
    timer = setTimeout(tick, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [poll, status, siteId, changeSetId]);

  if (nothing) return null;

  if (!current)
    return poll ? (
      <p className="muted" role="status">
        Checking the live site…
      </p>
    ) : null;

  const doUndo = async () => {
    setUndo("busy");
    try {
      const res = await fetch(`/sites/${siteId}/changes/${changeSetId}/undo`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: "{}",
      });
      const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
      if (!res.ok) setUndo(body.error?.message ?? "Undo failed.");
      else {
        setUndo("done");
        onUndone?.();
      }
    } catch {
      setUndo("Sitewright could not be reached. Try again.");
    }
  };

  const links = current.urls.map((u) => (
    <a key={u.url} href={u.url} target="_blank" rel="noreferrer noopener">
      {u.url}
    </a>
  ));
  return (
    <div role="status" data-testid="verification" data-status={current.status}>
      {current.status === "pending" ? <p className="muted">Checking the live site…</p> : null}
      {current.status === "verified" ? (
        <p>
          <strong>Verified on the live site</strong>
          {links.length ? <>: {links}</> : null}
        </p>
      ) : null}
      {current.status === "not_visible" || current.status === "unreachable" ? (
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
                  <a href={u.url} target="_blank" rel="noreferrer noopener">
                    {u.url}
                  </a>
                  {u.reason ? `: ${u.reason}` : null}
                </li>
              ))}
          </ul>
          {current.status === "not_visible" && canUndo && undo !== "done" ? (
            <button type="button" className="secondary" onClick={doUndo} disabled={undo === "busy"}>
              {undo === "busy" ? "Undoing…" : "Undo this change"}
            </button>
          ) : null}
          {undo === "done" ? <p>Undone.</p> : null}
          {undo !== "idle" && undo !== "busy" && undo !== "done" ? <p role="alert">{undo}</p> : null}
        </div>
      ) : null}
    </div>
  );
}
