"use client";
/** The Changes page's list: each change set with its items' diffs, a choice of items, and Undo. */
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { PublicChangeSet } from "@/lib/changes/change-sets";
import { ChangeItemDiff } from "../../chat/change-diff";
import styles from "./changes.module.css";

const STATUS: Record<string, string> = {
  pending: "Waiting for your approval",
  applied: "Applied",
  partially_applied: "Partly applied",
  undone: "Undone",
  partially_undone: "Partly undone",
  discarded: "Not applied",
};

type Failure = { message: string; items: Array<{ id: string; title: string; reason: string }> };

function ChangeSetCard({ siteId, set }: { siteId: string; set: PublicChangeSet }) {
  const router = useRouter();
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | undefined>();
  const rehearsal = set.target === "sandbox";
  // A rehearsal (sandbox set) is applied or discarded on its review page, not undone here.
  const undoable = rehearsal ? [] : set.items.filter((i) => i.status === "applied");

  const undo = async (itemIds?: string[]) => {
    setBusy(true);
    setFailure(undefined);
    try {
      const res = await fetch(`/sites/${siteId}/changes/${set.id}/undo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(itemIds ? { itemIds } : {}),
      });
      if (!res.ok) {
        const body = (await res.json().catch(() => undefined)) as
          | { error?: { message?: string; details?: { items?: Failure["items"] } } }
          | undefined;
        setFailure({
          message: body?.error?.message ?? `Undo failed (HTTP ${res.status}). Try again.`,
          items: body?.error?.details?.items ?? [],
        });
        return;
      }
      setChosen(new Set());
      router.refresh();
    } catch {
      setFailure({ message: "Sitewright could not be reached. Check your connection and try again.", items: [] });
    } finally {
      setBusy(false);
    }
  };

  return (
    <li id={set.id} className={`card ${styles.set}`} data-testid="change-set" data-status={set.status}>
      <div className={styles.head}>
        <strong>{STATUS[set.status] ?? set.status}</strong>
        <time dateTime={set.createdAt} className="muted">
          {new Date(set.createdAt).toLocaleString()}
        </time>
      </div>
      {rehearsal ? (
        <p data-testid="rehearsal">
          Tried in a sandbox{set.status === "pending" ? ": your live site is unchanged. " : ". "}
          <a href={`/sites/${siteId}/review/${set.id}`}>
            {set.status === "pending" ? "Review, apply or discard" : "Review"}
          </a>
        </p>
      ) : null}
      <ul className={styles.items}>
        {set.items.map((item) => (
          <li key={item.id} data-item-status={item.status}>
            {undoable.length > 1 && item.status === "applied" ? (
              <label className={styles.choose}>
                <input
                  type="checkbox"
                  checked={chosen.has(item.id)}
                  onChange={(event) => {
                    const next = new Set(chosen);
                    if (event.target.checked) next.add(item.id);
                    else next.delete(item.id);
                    setChosen(next);
                  }}
                />{" "}
                Choose
              </label>
            ) : null}
            <ChangeItemDiff item={item} />
            {item.status !== "applied" ? <small className="muted">{STATUS[item.status] ?? item.status}</small> : null}
          </li>
        ))}
      </ul>
      {failure ? (
        <div className="error" role="alert" data-testid="undo-error">
          <p>{failure.message}</p>
          {failure.items.length > 1 ? (
            <ul>
              {failure.items.map((i) => (
                <li key={i.id}>
                  “{i.title}”: {i.reason}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {undoable.length > 0 ? (
        <div className={styles.actions}>
          <button type="button" className="danger" disabled={busy} onClick={() => void undo()}>
            {busy ? "Undoing…" : undoable.length === set.items.length ? "Undo" : "Undo the rest"}
          </button>
          {chosen.size > 0 ? (
            <button type="button" className="secondary" disabled={busy} onClick={() => void undo([...chosen])}>
              Undo {chosen.size} chosen
            </button>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

export function ChangesList({ siteId, changeSets }: { siteId: string; changeSets: PublicChangeSet[] }) {
  if (changeSets.length === 0) return <p className="muted">The assistant has not changed anything on this site yet.</p>;
  return (
    <ol className={styles.sets}>
      {changeSets.map((set) => (
        <ChangeSetCard key={set.id} siteId={siteId} set={set} />
      ))}
    </ol>
  );
}
