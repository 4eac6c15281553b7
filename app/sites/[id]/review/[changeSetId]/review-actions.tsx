"use client";
/** Apply or discard a rehearsal; after Apply, undo the live change set it became. */
import { useRouter } from "next/navigation";
import { useState } from "react";
import styles from "./review.module.css";

type Props = { siteId: string; changeSet: { id: string; status: string; target: "live" | "sandbox" } };
type Outcome = { kind: "ok" | "error"; text: string };
type Answer = { changeSet?: { id: string }; error?: { message?: string } };

async function post(path: string): Promise<{ ok: boolean; body: Answer }> {
  const response = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  return { ok: response.ok, body: (await response.json().catch(() => ({}))) as Answer };
}

export function ReviewActions({ siteId, changeSet }: Props) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const [liveSetId, setLiveSetId] = useState<string | undefined>(
    changeSet.target === "live" ? changeSet.id : undefined,
  );
  const base = `/sites/${siteId}/changes`;

  const act = async (path: string, done: (body: Answer) => Outcome) => {
    setBusy(true);
    setOutcome(undefined);
    try {
      const { ok, body } = await post(path);
      setOutcome(ok ? done(body) : { kind: "error", text: body?.error?.message ?? "That did not work. Try again." });
      if (ok) router.refresh();
    } catch {
      setOutcome({ kind: "error", text: "Sitewright could not be reached. Check your connection and try again." });
    } finally {
      setBusy(false);
    }
  };

  const partly = changeSet.status === "partially_applied";
  const pending = (changeSet.status === "pending" || partly) && changeSet.target === "sandbox";
  return (
    <div className={styles.actions}>
      {pending && !liveSetId ? (
        <>
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void act(`${base}/${changeSet.id}/apply`, (body) => {
                setLiveSetId(body.changeSet?.id);
                return { kind: "ok", text: "Applied: your live site now shows these changes." };
              })
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
      {liveSetId ? (
        <button
          type="button"
          className="secondary"
          disabled={busy}
          onClick={() =>
            void act(`${base}/${liveSetId}/undo`, () => {
              setLiveSetId(undefined);
              return { kind: "ok", text: "Undone: your live site is as it was before." };
            })
          }
        >
          Undo on live site
        </button>
      ) : null}
      {busy ? <span className="muted">Working…</span> : null}
      {outcome ? (
        <p
          role={outcome.kind === "error" ? "alert" : "status"}
          className={outcome.kind === "error" ? "error" : "ok"}
          data-testid="review-outcome"
        >
          {outcome.text}
        </p>
      ) : null}
    </div>
  );
}
