"use client";
/** Apply or discard a rehearsal; after Apply, undo the live change set it became. */
import { useRouter } from "next/navigation";
import { useState } from "react";
import styles from "./review.module.css";

type Props = { siteId: string; changeSet: { id: string; status: string; target: "live" | "sandbox" } };
type Outcome = { kind: "ok" | "error"; text: string };
type Answer = {
  changeSet?: { id: string };
  error?: { code?: string; message?: string; details?: { items?: Array<{ changeSetId?: string }> } };
};

async function post(path: string, body: unknown = {}): Promise<{ ok: boolean; body: Answer }> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { ok: response.ok, body: (await response.json().catch(() => ({}))) as Answer };
}

/** The earlier rehearsals a `409 superseded` names: applying them together with this one is what the owner can do. */
const supersededBy = (body: Answer) =>
  body.error?.code === "superseded"
    ? [...new Set((body.error.details?.items ?? []).map((i) => i.changeSetId).filter((id): id is string => !!id))]
    : [];

/** One request at a time, with what it answered in words; a `409 superseded` keeps the sets to apply together. */
function useReviewAction() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const [together, setTogether] = useState<string[]>([]);
  const act = async (path: string, done: (body: Answer) => Outcome, payload: unknown = {}) => {
    setBusy(true);
    setOutcome(undefined);
    try {
      const { ok, body } = await post(path, payload);
      setTogether(ok ? [] : supersededBy(body));
      setOutcome(ok ? done(body) : { kind: "error", text: body?.error?.message ?? "That did not work. Try again." });
      if (ok) router.refresh();
    } catch {
      setOutcome({ kind: "error", text: "Sitewright could not be reached. Check your connection and try again." });
    } finally {
      setBusy(false);
    }
  };
  return { busy, outcome, together, act };
}

function OutcomeLine({ outcome }: { outcome?: Outcome }) {
  if (!outcome) return null;
  return (
    <p
      role={outcome.kind === "error" ? "alert" : "status"}
      className={outcome.kind === "error" ? "error" : "ok"}
      data-testid="review-outcome"
    >
      {outcome.text}
    </p>
  );
}

export function ReviewActions({ siteId, changeSet }: Props) {
  const { busy, outcome, together, act } = useReviewAction();
  const [liveSetId, setLiveSetId] = useState<string | undefined>(
    changeSet.target === "live" ? changeSet.id : undefined,
  );
  const base = `/sites/${siteId}/changes`;
  const applied = (text: string) => (body: Answer) => {
    setLiveSetId(body.changeSet?.id);
    return { kind: "ok" as const, text };
  };
  const partly = changeSet.status === "partially_applied";
  const pending = (changeSet.status === "pending" || partly) && changeSet.target === "sandbox";
  const undo = () =>
    void act(`${base}/${liveSetId}/undo`, () => {
      setLiveSetId(undefined);
      return { kind: "ok", text: "Undone: your live site is as it was before." };
    });
  return (
    <div className={styles.actions}>
      {pending && !liveSetId ? (
        <>
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void act(`${base}/${changeSet.id}/apply`, applied("Applied: your live site now shows these changes."))
            }
          >
            {partly ? "Apply the rest to live site" : "Apply to live site"}
          </button>
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() =>
              void act(`${base}/${changeSet.id}/discard`, () => ({
                kind: "ok",
                text: "Discarded: nothing was changed on your live site.",
              }))
            }
          >
            Discard
          </button>
        </>
      ) : null}
      {together.length > 0 && !liveSetId ? (
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void act(
              `${base}/${changeSet.id}/apply`,
              applied("Applied both: your live site now shows these changes."),
              { changeSetIds: together },
            )
          }
        >
          Apply both to live site
        </button>
      ) : null}
      {liveSetId ? (
        <button type="button" className="secondary" disabled={busy} onClick={undo}>
          Undo on live site
        </button>
      ) : null}
      {busy ? <span className="muted">Working…</span> : null}
      <OutcomeLine outcome={outcome} />
    </div>
  );
}
