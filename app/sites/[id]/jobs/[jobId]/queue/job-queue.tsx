"use client";
/**
 * A bulk job's queue: every planned item with its diff (and a media item's picture beside it); the owner ticks some and approves or rejects them (or all
 * that wait), rewords one before it is written, and undoes what was written as one. Items a person changed since
 * planning are skipped and named in the answer.
 */
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { PublicChangeItem } from "@/lib/changes/change-sets";
import { type CombinedRow, combineByTarget, strandedSteps } from "@/lib/changes/combined";
import { jobActions } from "@/lib/jobs/counts";
import type { JobView } from "@/lib/workflows/bulk-job";
import { ChangeItemDiff, CombinedSteps } from "../../../chat/change-diff";
import { ItemPicture } from "./item-picture";
import styles from "./queue.module.css";
import { useHydrated } from "@/app/use-hydrated";

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

type Action = "apply" | "reject" | "undo";

/**
 * The queue's batch actions. One transition covers the request and the page's refresh after it: the rows acted on
 * stay disabled and every button waits until the refreshed list and the outcome show together, so the next click
 * lands on what the owner sees.
 */
function useQueueActions(siteId: string, changeSetId: string) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  // Before hydration a click would be lost: the buttons wait (use-hydrated.ts).
  const hydrated = useHydrated();
  const busy = pending || !hydrated;
  const [acting, setActing] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<Outcome>();
  const act = (action: Action, itemIds: string[], covered: Covered, done: string, after: () => void) => {
    setActing(new Set(itemIds));
    startTransition(async () => {
      const { ok, body } = await send(`/sites/${siteId}/changes/${changeSetId}/${action}`, "POST", covered);
      const skipped = body.details?.skipped ?? [];
      startTransition(() => {
        setOutcome(
          ok
            ? {
                ok,
                text: skipped.length ? `${done} ${skipped.length} skipped: changed on the site since.` : done,
                skipped,
              }
            : { ok, text: body.error?.message ?? "That did not work. Try again." },
        );
        setActing(new Set());
        after();
        router.refresh();
      });
    });
  };
  return { busy, acting, outcome, act };
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

/** An item's state in words, as the job's counts name them (lib/jobs/counts.ts). */
const ITEM_STATUS: Record<string, string> = {
  writing: "being written",
  applied: "written",
  denied: "rejected",
  failed: "not written: changed on the site since",
  undoing: "being undone",
  undone: "undone",
};

/** What a row's checkbox covers: every waiting item it stands for (several changes to one item go together). */
const waitingIn = (row: CombinedRow) => row.steps.filter((step) => step.status === "pending").map((step) => step.id);

const GONE_WORDS: Record<string, string> = { denied: "was rejected", failed: "was not written", undone: "was undone" };

/** A waiting change planned on top of one that will never be written: it can only be rejected. */
function Stranded({ row }: { row: CombinedRow }) {
  const stranded = strandedSteps(row);
  if (stranded.length === 0) return null;
  return (
    <p className="warn" data-testid="stranded">
      {stranded.map(({ step, on }) => (
        <span key={step.id}>
          “{step.summary}” cannot be approved: it was planned on top of “{on.summary}”, which{" "}
          {GONE_WORDS[on.status] ?? "cannot be approved either"}. Reject it, or ask again for the change.{" "}
        </span>
      ))}
    </p>
  );
}

/**
 * One row of the queue: an item, or several changes to one item shown as one (lib/changes/combined.ts), chosen
 * together; its picture (media), a checkbox while something in it waits, its diff, and its rewording.
 */
function QueueItem(props: {
  siteId: string;
  changeSetId: string;
  row: CombinedRow;
  chosen: boolean;
  /** A batch action is acting on it: it cannot be chosen again until the outcome shows. */
  acting: boolean;
  onToggle: () => void;
}) {
  const { siteId, changeSetId, row } = props;
  const waits = waitingIn(row).length > 0;
  const together = row.steps.length > 1 ? ` (${row.steps.length} changes, chosen together)` : "";
  return (
    <li
      data-testid="queue-item"
      data-key={row.id}
      data-status={row.status}
      aria-busy={props.acting}
      className={styles.item}
    >
      <ItemPicture siteId={siteId} item={row} />
      <div className={styles.body}>
        {waits ? (
          <label>
            <input type="checkbox" checked={props.chosen} disabled={props.acting} onChange={props.onToggle} /> Choose “
            {row.title}”{together}
            {props.acting ? " (working…)" : null}
          </label>
        ) : (
          <p>
            <strong>{row.title}</strong> — {ITEM_STATUS[row.status] ?? row.status}
            {props.acting ? " (working…)" : null}
          </p>
        )}
        <ChangeItemDiff item={row} />
        <CombinedSteps row={row} note="Approve and Reject take them together; Undo takes them back as one." />
        <Stranded row={row} />
        {row.steps.length === 1 ? <EditItem siteId={siteId} changeSetId={changeSetId} item={row} /> : null}
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

/** The batch actions the job's state offers (lib/jobs/counts.ts): nothing to approve or cancel once it is undone. */
function QueueButtons(props: {
  job: JobView;
  busy: boolean;
  picked: string[];
  /** The picked items Approve can write (not those resting on a change that will never be written). */
  approvable: string[];
  waiting: PublicChangeItem[];
  written: string[];
  approveAll: { upTo?: string; count: number };
  act: ReturnType<typeof useQueueActions>["act"];
  clear: () => void;
}) {
  const { job, busy, picked, approvable, waiting, written, approveAll, act, clear } = props;
  const offered = jobActions(job);
  return (
    <fieldset>
      <legend>Review actions</legend>
      {job.counts.waiting > 0 ? (
        <>
          <button
            type="button"
            disabled={busy || approvable.length === 0 || job.status !== "ready"}
            onClick={() => act("apply", approvable, { itemIds: approvable }, `Approved ${approvable.length}.`, clear)}
          >
            Approve selected ({approvable.length})
          </button>
          <button
            type="button"
            disabled={busy || picked.length === 0}
            onClick={() => act("reject", picked, { itemIds: picked }, `Rejected ${picked.length}.`, clear)}
          >
            Reject selected ({picked.length})
          </button>
        </>
      ) : null}
      {offered.approveAll ? (
        <ApproveAllShown
          busy={busy}
          approveAll={approveAll}
          planning={job.status === "planning"}
          onApprove={(upTo) =>
            act(
              "apply",
              waiting.map((item) => item.id),
              { upTo },
              `Approved the ${approveAll.count} shown.`,
              clear,
            )
          }
        />
      ) : null}
      {offered.undo ? (
        <button type="button" disabled={busy} onClick={() => act("undo", written, {}, "Undid the job.", clear)}>
          Undo the whole job
        </button>
      ) : null}
      {!offered.approveAll && !offered.undo && job.counts.waiting === 0 ? (
        <p>Nothing is left to approve or undo in this job.</p>
      ) : null}
    </fieldset>
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
  const { busy, acting, outcome, act } = useQueueActions(siteId, job.changeSetId);
  const waiting = items.filter((item) => item.status === "pending");
  const rows = combineByTarget(items);
  // A row is chosen as a whole: several changes to one item are approved or rejected together.
  const toggle = (row: CombinedRow) =>
    setChosen((current) => {
      const next = new Set(current);
      const ids = waitingIn(row);
      const on = !ids.every((id) => next.has(id));
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  const picked = [...chosen].filter((id) => waiting.some((item) => item.id === id));
  const stranded = new Set(rows.flatMap((row) => strandedSteps(row).map(({ step }) => step.id)));
  const clear = () => setChosen(new Set());
  const written = items.filter((item) => item.status === "applied").map((item) => item.id);
  return (
    <section aria-label="Review queue" aria-busy={busy}>
      <QueueButtons
        job={job}
        busy={busy}
        picked={picked}
        approvable={picked.filter((id) => !stranded.has(id))}
        waiting={waiting}
        written={written}
        approveAll={approveAll}
        act={act}
        clear={clear}
      />
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
        {rows.map((row) => (
          <QueueItem
            key={row.id}
            siteId={siteId}
            changeSetId={job.changeSetId}
            row={row}
            chosen={waitingIn(row).length > 0 && waitingIn(row).every((id) => chosen.has(id))}
            acting={row.itemIds.some((id) => acting.has(id))}
            onToggle={() => toggle(row)}
          />
        ))}
      </ol>
    </section>
  );
}
