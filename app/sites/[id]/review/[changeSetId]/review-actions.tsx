"use client";
/**
 * A rehearsal's state in one sentence, Apply or Discard; after Apply, undo the live change set it became. A rehearsal
 * whose sandbox is gone offers Discard only, and says why. An action's outcome replaces the state sentence, and it
 * shows together with the refreshed page (one transition), never beside a sentence it contradicts.
 */
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import styles from "./review.module.css";
import { rehearsalSentence } from "./status";
import { useHydrated } from "@/app/use-hydrated";

type ReviewItem = { id: string; title: string; summary: string; status: string; madeLive?: boolean };
type Props = {
  siteId: string;
  changeSet: { id: string; status: string; target: "live" | "sandbox" };
  /** A rehearsal's sandbox: `gone` leaves nothing to preview or apply. Absent for a change on the live site. */
  sandbox?: "running" | "gone";
  /** A rehearsal's items: the owner may apply some of them first (partial apply). */
  items?: ReviewItem[];
};
type Outcome = { kind: "ok" | "error"; text: string };
type Answer = {
  changeSet?: { id: string; target?: string };
  /** A bulk job's Apply: the items a person changed on the live site since the copy, left as they made them. */
  details?: { skipped?: Array<{ title: string; reason: string }> };
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
  const [pending, startTransition] = useTransition();
  // Before hydration a click would be lost: the buttons wait (use-hydrated.ts).
  const hydrated = useHydrated();
  const busy = pending || !hydrated;
  const [outcome, setOutcome] = useState<Outcome>();
  const [together, setTogether] = useState<string[]>([]);
  const act = (path: string, done: (body: Answer) => Outcome, payload: unknown = {}) =>
    startTransition(async () => {
      const answer = await post(path, payload).catch(() => undefined);
      startTransition(() => {
        if (!answer) {
          setOutcome({ kind: "error", text: "Sitewright could not be reached. Check your connection and try again." });
          return;
        }
        const { ok, body } = answer;
        setTogether(ok ? [] : supersededBy(body));
        setOutcome(ok ? done(body) : { kind: "error", text: body?.error?.message ?? "That did not work. Try again." });
        if (ok) router.refresh();
      });
    });
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

/** The rehearsal items not live yet, each with a checkbox: none ticked applies them all. */
function ItemChooser({
  items,
  chosen,
  toggle,
}: {
  items: ReviewItem[];
  chosen: Set<string>;
  toggle(id: string): void;
}) {
  if (items.length < 2) return null;
  return (
    <fieldset className={styles.chooser} data-testid="apply-chooser">
      <legend>Apply only some of these (leave all unticked to apply everything)</legend>
      {items.map((item) => (
        <label key={item.id}>
          <input type="checkbox" checked={chosen.has(item.id)} onChange={() => toggle(item.id)} /> {item.title}:{" "}
          {item.summary}
        </label>
      ))}
    </fieldset>
  );
}

function useChosen() {
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const toggle = (id: string) =>
    setChosen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return { chosen, toggle, clear: () => setChosen(new Set()) };
}

/** Apply (all, or the chosen items) or Discard a rehearsal that waits. */
function PendingButtons(props: {
  busy: boolean;
  partly: boolean;
  items: ReviewItem[];
  apply(itemIds?: string[]): void;
  discard(): void;
}) {
  const { chosen, toggle, clear } = useChosen();
  const label =
    chosen.size > 0
      ? `Apply ${chosen.size} chosen`
      : props.partly
        ? "Apply the rest to live site"
        : "Apply to live site";
  return (
    <>
      <ItemChooser items={props.items} chosen={chosen} toggle={toggle} />
      <button
        type="button"
        disabled={props.busy}
        onClick={() => {
          const itemIds = chosen.size > 0 ? [...chosen] : undefined;
          clear();
          props.apply(itemIds);
        }}
      >
        {label}
      </button>
      <button type="button" className="secondary" disabled={props.busy} onClick={props.discard}>
        Discard
      </button>
    </>
  );
}

/** The rehearsal's state in one sentence, until an action's outcome says what happened instead. */
function StateSentence({ status, sandbox }: { status: string; sandbox: "running" | "gone" }) {
  return (
    <p data-testid="change-set-status" data-status={status} className={styles.status}>
      {rehearsalSentence(status, sandbox)}
    </p>
  );
}

export function ReviewActions({ siteId, changeSet, sandbox, items = [] }: Props) {
  const { busy, outcome, together, act } = useReviewAction();
  const waiting = items.filter((item) => !item.madeLive);
  const [liveSetId, setLiveSetId] = useState<string | undefined>(
    changeSet.target === "live" ? changeSet.id : undefined,
  );
  const base = `/sites/${siteId}/changes`;
  const applied = (text: string) => (body: Answer) => {
    if (body.changeSet?.target === "live") setLiveSetId(body.changeSet.id);
    const skipped = body.details?.skipped ?? [];
    const names = skipped.map((s) => `“${s.title}” (${s.reason})`).join("; ");
    return { kind: "ok" as const, text: skipped.length ? `${text} Skipped ${skipped.length}: ${names}` : text };
  };
  const partly = changeSet.status === "partially_applied";
  const pending = (changeSet.status === "pending" || partly) && sandbox === "running";
  const discardOnly = (changeSet.status === "pending" || partly) && sandbox === "gone";
  const undo = () =>
    void act(`${base}/${liveSetId}/undo`, () => {
      setLiveSetId(undefined);
      return { kind: "ok", text: "Undone: your live site is as it was before." };
    });
  const discard = () =>
    void act(`${base}/${changeSet.id}/discard`, () => ({
      kind: "ok",
      text: "Discarded: nothing was changed on your live site.",
    }));
  return (
    <div className={styles.actions}>
      {sandbox && outcome?.kind !== "ok" ? <StateSentence status={changeSet.status} sandbox={sandbox} /> : null}
      {discardOnly ? (
        <button type="button" className="secondary" disabled={busy} onClick={discard}>
          Discard
        </button>
      ) : null}
      {pending && !liveSetId ? (
        <PendingButtons
          busy={busy}
          partly={partly}
          items={waiting}
          apply={(itemIds) =>
            void act(
              `${base}/${changeSet.id}/apply`,
              applied(
                itemIds
                  ? "Applied the chosen changes to your live site."
                  : "Applied: your live site now shows these changes.",
              ),
              itemIds ? { itemIds } : {},
            )
          }
          discard={discard}
        />
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
