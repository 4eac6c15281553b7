"use client";
/**
 * A bulk job's queue: every planned item with its diff (and a media item's picture beside it); the owner ticks some and approves or rejects them (or all
 * that wait), rewords one before it is written, and undoes what was written as one. Items a person changed since
 * planning are skipped and named in the answer.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { PublicChangeItem } from "@/lib/changes/change-sets";
import type { JobView } from "@/lib/workflows/bulk-job";
import { ChangeItemDiff } from "../../../chat/change-diff";
import { ItemPicture } from "./item-picture";
import styles from "./queue.module.css";

type Skipped = { id: string; title: string; reason: string };
type Answer = { details?: { skipped?: Skipped[] }; error?: { message?: string } };
type Outcome = { ok: boolean; text: string; skipped?: Skipped[] };
/** What a click covers: chosen items, or every waiting item up to the last one this page drew, or all (Undo). */
type Covered = { itemIds: string[] } | { upTo: string } | Record<string, never>;

async function send(path: string, method: string, body: unknown): Promise<{ ok: boolean; body: Answer }> {
  const response = await fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).catch(() => undefined);
  if (!response) return { ok: false, body: { error: { message: "Sitewright could not be reached. Try again." } } };
  return { ok: response.ok, body: (await response.json().catch(() => ({}))) as Answer };
}

function useQueueActions(siteId: string, changeSetId: string) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const act = async (action: "apply" | "reject" | "undo", covered: Covered, done: string) => {
    setBusy(true);
    const { ok, body } = await send(`/sites/${siteId}/changes/${changeSetId}/${action}`, "POST", covered);
    const skipped = body.details?.skipped ?? [];
    setOutcome(
      ok
        ? { ok, text: skipped.length ? `${done} ${skipped.length} skipped: changed on the site since.` : done, skipped }
        : { ok, text: body.error?.message ?? "That did not work. Try again." },
    );
    setBusy(false);
    router.refresh();
  };
  return { busy, outcome, act };
}

/** A waiting item with one text field: the owner's own wording, saved before it is approved. */
function EditItem({ siteId, changeSetId, item }: { siteId: string; changeSetId: string; item: PublicChangeItem }) {
  const router = useRouter();
  const after = (item.after ?? {}) as Record<string, unknown>;
  const [field] = Object.keys(after).filter((key) => typeof after[key] === "string");
  const [text, setText] = useState(field ? String(after[field]) : "");
  const [error, setError] = useState<string>();
  if (!field || item.status !== "pending") return null;
  const save = async () => {
    const { ok, body } = await send(`/sites/${siteId}/changes/${changeSetId}/items/${item.id}`, "PATCH", {
      after: { [field]: text },
    });
    setError(ok ? undefined : body.error?.message);
    if (ok) router.refresh();
  };
  return (
    <details>
      <summary>Edit the proposed text</summary>
      <label>
        Your wording for “{item.title}”
        <textarea value={text} onChange={(event) => setText(event.target.value)} rows={3} />
      </label>
      <button type="button" onClick={save}>
        Save my wording
      </button>
      {error ? <p role="alert">{error}</p> : null}
    </details>
  );
}

/** One item of the queue: its picture (media), a checkbox while it waits, its diff, and its rewording. */
function QueueItem(props: {
  siteId: string;
  changeSetId: string;
  item: PublicChangeItem;
  chosen: boolean;
  onToggle: () => void;
}) {
  const { siteId, changeSetId, item } = props;
  return (
    <li data-testid="queue-item" data-status={item.status} className={styles.item}>
      <ItemPicture siteId={siteId} item={item} />
      <div className={styles.body}>
        {item.status === "pending" ? (
          <label>
            <input type="checkbox" checked={props.chosen} onChange={props.onToggle} /> Choose “{item.title}”
          </label>
        ) : (
          <p>
            <strong>{item.title}</strong> — {item.status}
          </p>
        )}
        <ChangeItemDiff item={item} />
        <EditItem siteId={siteId} changeSetId={changeSetId} item={item} />
      </div>
    </li>
  );
}

/** "Approve all": the waiting items up to the last one this page drew, and how many that is (API.md v1.3). */
function ApproveAllShown(props: {
  busy: boolean;
  approveAll: { upTo?: string; count: number };
  planning: boolean;
  onApprove(upTo: string): void;
}) {
  const { upTo, count } = props.approveAll;
  return (
    <button type="button" disabled={props.busy || count === 0 || !upTo} onClick={() => upTo && props.onApprove(upTo)}>
      Approve all waiting ({count}
      {props.planning ? " shown so far; later ones keep waiting" : ""})
    </button>
  );
}

export function JobQueue(props: {
  siteId: string;
  job: JobView;
  items: PublicChangeItem[];
  /** The last item this page drew and how many waiting items up to it the "Approve all" covers. */
  approveAll: { upTo?: string; count: number };
}) {
  const { siteId, job, items, approveAll } = props;
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const { busy, outcome, act } = useQueueActions(siteId, job.changeSetId);
  const waiting = items.filter((item) => item.status === "pending");
  const toggle = (id: string) =>
    setChosen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const picked = [...chosen].filter((id) => waiting.some((item) => item.id === id));
  return (
    <section aria-label="Review queue">
      <fieldset>
        <legend>Review actions</legend>
        <button
          type="button"
          disabled={busy || picked.length === 0}
          onClick={() => act("apply", { itemIds: picked }, `Approved ${picked.length}.`)}
        >
          Approve selected ({picked.length})
        </button>
        <button
          type="button"
          disabled={busy || picked.length === 0}
          onClick={() => act("reject", { itemIds: picked }, `Rejected ${picked.length}.`)}
        >
          Reject selected ({picked.length})
        </button>
        <ApproveAllShown
          busy={busy}
          approveAll={approveAll}
          planning={job.status === "planning"}
          onApprove={(upTo) => act("apply", { upTo }, "Approved every waiting change.")}
        />
        <button
          type="button"
          disabled={busy || !items.some((item) => item.status === "applied")}
          onClick={() => act("undo", {}, "Undid the job.")}
        >
          Undo the whole job
        </button>
      </fieldset>
      {outcome ? (
        <div role={outcome.ok ? "status" : "alert"} data-testid="queue-outcome">
          <p>{outcome.text}</p>
          {outcome.skipped?.length ? (
            <ul>
              {outcome.skipped.map((s) => (
                <li key={s.id}>
                  “{s.title}”: {s.reason}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <ol data-testid="job-queue">
        {items.map((item) => (
          <QueueItem
            key={item.id}
            siteId={siteId}
            changeSetId={job.changeSetId}
            item={item}
            chosen={chosen.has(item.id)}
            onToggle={() => toggle(item.id)}
          />
        ))}
      </ol>
    </section>
  );
}
