"use client";
/**
 * The Changes page's list: each change set as a summary (status, when, its items' titles) with Undo; its diff is
 * loaded when the set is opened (the one the address names, or else the newest, opens by itself), a page of
 * items at a time, and an item cut to fit is read whole on request.
 */
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type {
  ChangeSetList,
  ChangeSetPage,
  ChangeSetSummary,
  PublicChangeItem,
  PublicChangeSet,
} from "@/lib/changes/change-sets";
import { type CombinedRow, combineByTarget } from "@/lib/changes/combined";
import { ChangeItemDiff, CombinedSteps } from "../../chat/change-diff";
import { runningStatusLine } from "@/lib/changes/run-status";
import { VerificationStatus } from "../../verification-status";
import styles from "./changes.module.css";
import { useHydrated } from "@/app/use-hydrated";

const STATUS: Record<string, string> = {
  pending: "Waiting for approval",
  applied: "Applied",
  partially_applied: "Partly applied",
  undone: "Undone",
  partially_undone: "Partly undone",
  discarded: "Not applied",
};

/** Live sets in these states still have written items that Undo puts back. */
const UNDOABLE = new Set(["applied", "partially_applied", "partially_undone"]);

type Failure = { message: string; items: Array<{ id: string; title: string; reason: string }> };
type ErrorBody = { error?: { message?: string; details?: { items?: Failure["items"] } } };

const unreachable = "Sitewright could not be reached. Check your connection and try again.";

async function readJson<T>(url: string): Promise<{ ok: true; data: T } | { ok: false; message: string }> {
  try {
    const res = await fetch(url, { headers: { accept: "application/json" } });
    const body = (await res.json().catch(() => undefined)) as (T & ErrorBody) | undefined;
    if (!res.ok || !body) return { ok: false, message: body?.error?.message ?? `Loading failed (HTTP ${res.status}).` };
    return { ok: true, data: body };
  } catch {
    return { ok: false, message: unreachable };
  }
}

const titleLine = (set: ChangeSetSummary) => {
  if (set.itemCount === 0) return "No items.";
  const more = set.itemCount - set.titles.length;
  const named = set.titles.map((t) => `“${t}”`).join(", ");
  const count = `${set.itemCount} ${set.itemCount === 1 ? "item" : "items"}`;
  return named ? `${count}: ${named}${more > 0 && set.titles.length > 0 ? ` and ${more} more` : ""}` : count;
};

/** A set opened from a link but older than the first page: its summary, from its own page. */
function summaryOf(page: ChangeSetPage): ChangeSetSummary {
  const { siteId: _siteId, items, itemCount, ...fields } = page.changeSet;
  return { ...fields, itemCount, titles: [...new Set(items.map((i) => i.title).filter(Boolean))].slice(0, 10) };
}

type Diff = { items: PublicChangeItem[]; nextCursor?: string };

/** A set's diff, a page of items at a time, loaded when the set is open and again after its status changes. */
function useSetDiff(base: string, open: boolean, status: string) {
  const [diff, setDiff] = useState<Diff | undefined>();
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | undefined>();

  // biome-ignore lint/correctness/useExhaustiveDependencies: status is the signal to read the items again
  useEffect(() => {
    if (!open) return;
    let current = true;
    setLoading(true);
    setLoadError(undefined);
    void readJson<ChangeSetPage>(base).then((answer) => {
      if (!current) return;
      setLoading(false);
      if (answer.ok) setDiff({ items: answer.data.changeSet.items, nextCursor: answer.data.nextCursor });
      else setLoadError(answer.message);
    });
    return () => {
      current = false;
    };
  }, [open, base, status]);

  const moreItems = async () => {
    if (!diff?.nextCursor) return;
    setLoading(true);
    const answer = await readJson<ChangeSetPage>(`${base}?cursor=${encodeURIComponent(diff.nextCursor)}`);
    setLoading(false);
    if (answer.ok)
      setDiff({ items: [...diff.items, ...answer.data.changeSet.items], nextCursor: answer.data.nextCursor });
    else setLoadError(answer.message);
  };

  const wholeItem = async (itemId: string) => {
    const answer = await readJson<{ item: PublicChangeItem }>(`${base}/items/${itemId}`);
    if (!answer.ok) return setLoadError(answer.message);
    setDiff((d) => d && { ...d, items: d.items.map((i) => (i.id === itemId ? answer.data.item : i)) });
  };
  return { diff, loading, loadError, moreItems, wholeItem };
}

/** Undo of the whole set or of chosen items, with what the site answered. */
function useSetUndo(base: string, onDone: () => void) {
  const [working, setBusy] = useState(false);
  // Before hydration a click would be lost: the buttons wait (use-hydrated.ts).
  const hydrated = useHydrated();
  const busy = working || !hydrated;
  const [failure, setFailure] = useState<Failure | undefined>();
  // What the last undo answered: sets from older pages are not re-read by a refresh.
  const [undoneTo, setUndoneTo] = useState<string | undefined>();
  // After an undo here, the look at the live site starts again: ask for its outcome.
  const [verifyAgain, setVerifyAgain] = useState(false);

  const undo = async (itemIds?: string[]) => {
    setBusy(true);
    setFailure(undefined);
    try {
      const res = await fetch(`${base}/undo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(itemIds ? { itemIds } : {}),
      });
      if (!res.ok) {
        const body = (await res.json().catch(() => undefined)) as ErrorBody | undefined;
        setFailure({
          message: body?.error?.message ?? `Undo failed (HTTP ${res.status}). Try again.`,
          items: body?.error?.details?.items ?? [],
        });
        return;
      }
      const body = (await res.json().catch(() => undefined)) as { changeSet?: PublicChangeSet } | undefined;
      if (body?.changeSet) setUndoneTo(body.changeSet.status);
      setVerifyAgain(true);
      onDone();
    } catch {
      setFailure({ message: unreachable, items: [] });
    } finally {
      setBusy(false);
    }
  };
  const undoneElsewhere = () => {
    setUndoneTo("undone");
    setVerifyAgain(true);
  };
  return { busy, failure, undoneTo, verifyAgain, undo, undoneElsewhere };
}

function UndoFailure({ failure }: { failure: Failure }) {
  return (
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
  );
}

type Chooser = { enabled: boolean; chosen: Set<string>; toggle(ids: string[], on: boolean): void };

/** A row's written items: undone together (several changes to one item go back as one, lib/changes/chains.ts). */
const writtenIn = (row: CombinedRow) => row.steps.filter((step) => step.status === "applied").map((step) => step.id);

function DiffItems({
  items,
  chooser,
  onWhole,
}: {
  items: PublicChangeItem[];
  chooser: Chooser;
  onWhole(id: string): void;
}) {
  return (
    <ul className={styles.items}>
      {combineByTarget(items).map((row) => (
        <li key={row.id} data-item-status={row.status} data-items={row.itemIds.length}>
          {chooser.enabled && writtenIn(row).length > 0 ? (
            <label className={styles.choose}>
              <input
                type="checkbox"
                checked={writtenIn(row).every((id) => chooser.chosen.has(id))}
                onChange={(event) => chooser.toggle(writtenIn(row), event.target.checked)}
              />{" "}
              Choose{row.steps.length > 1 ? ` (${row.steps.length} changes, undone together)` : ""}
            </label>
          ) : null}
          <ChangeItemDiff item={row} />
          <CombinedSteps row={row} note="Undo takes them back as one." />
          {row.truncated ? (
            <p className="muted" data-testid="diff-truncated">
              This change is too long to show here in full.{" "}
              {row.steps.length === 1 ? (
                <button type="button" className="link" onClick={() => onWhole(row.id)}>
                  Show all of it
                </button>
              ) : null}
            </p>
          ) : null}
          {row.status !== "applied" ? <small className="muted">{STATUS[row.status] ?? row.status}</small> : null}
        </li>
      ))}
    </ul>
  );
}

function RehearsalLink({ siteId, setId, status }: { siteId: string; setId: string; status: string }) {
  return (
    <p data-testid="rehearsal">
      Tried in a sandbox{status === "pending" ? ": your live site is unchanged. " : ". "}
      <a href={`/sites/${siteId}/review/${setId}`}>{status === "pending" ? "Review, apply or discard" : "Review"}</a>
    </p>
  );
}

function UndoActions(props: { busy: boolean; label: string; chosen: Set<string>; onUndo(ids?: string[]): void }) {
  const { busy, label, chosen, onUndo } = props;
  return (
    <div className={styles.actions}>
      <button type="button" className="danger" disabled={busy} onClick={() => onUndo()}>
        {busy ? "Undoing…" : label}
      </button>
      {chosen.size > 0 ? (
        <button type="button" className="secondary" disabled={busy} onClick={() => onUndo([...chosen])}>
          Undo {chosen.size} chosen
        </button>
      ) : null}
    </div>
  );
}

function OpenDiff(props: {
  state: { diff?: Diff; loading: boolean; loadError?: string };
  left: number;
  chooser: Chooser;
  onMore(): void;
  onWhole(id: string): void;
}) {
  const { diff, loading, loadError } = props.state;
  return (
    <>
      {loadError ? (
        <p className="error" role="alert" data-testid="diff-error">
          {loadError}
        </p>
      ) : null}
      {diff ? <DiffItems items={diff.items} chooser={props.chooser} onWhole={props.onWhole} /> : null}
      {loading ? <p className="muted">Loading…</p> : null}
      {diff?.nextCursor && !loading ? (
        <p>
          <button type="button" className="secondary" onClick={props.onMore}>
            Show more items ({props.left} left)
          </button>
        </p>
      ) : null}
    </>
  );
}

function SetHead({ set, status }: { set: ChangeSetSummary; status: string }) {
  return (
    <>
      <div className={styles.head}>
        <strong>{STATUS[status] ?? runningStatusLine(status, set.resumedAt) ?? status}</strong>
        <time dateTime={set.createdAt} className="muted">
          {new Date(set.createdAt).toLocaleString()}
        </time>
      </div>
      <p className={styles.titles} data-testid="change-set-titles">
        {titleLine(set)}
      </p>
      <WhoDidWhat set={set} />
    </>
  );
}

const DOORS: Record<string, string> = {
  chat: "in the chat",
  mcp: "through",
  job: "by a bulk job",
  ability: "by a WordPress ability",
};
const CLICKS: Record<string, string> = {
  approve: "Approved",
  deny: "Denied",
  apply: "Applied",
  undo: "Undone",
  discard: "Discarded",
  reject: "Rejected",
};

/** Who asked for the set and who approved, applied or undid it (docs/teams.md). */
export function WhoDidWhat({ set }: { set: Pick<ChangeSetSummary, "requestedBy" | "activity"> }) {
  const clicks = (set.activity ?? []).filter((a) => CLICKS[a.action]);
  if (!set.requestedBy && clicks.length === 0) return null;
  const door = (actor: NonNullable<ChangeSetSummary["requestedBy"]>) =>
    actor.door === "mcp" ? `through ${actor.client ?? "an MCP client"}` : DOORS[actor.door];
  return (
    <p className="muted" data-testid="who-did-what">
      {set.requestedBy ? (
        <span>
          Asked by {set.requestedBy.name} {door(set.requestedBy)}.{" "}
        </span>
      ) : null}
      {clicks.map((click) => (
        <span key={`${click.action}-${click.at}`}>
          {CLICKS[click.action]} by {click.actor.name}.{" "}
        </span>
      ))}
    </p>
  );
}

/** The look at the live site; after an undo here it is asked for again. */
function SetVerification(props: {
  siteId: string;
  set: ChangeSetSummary;
  again: boolean;
  canUndo: boolean;
  onUndone(): void;
}) {
  const { siteId, set, again } = props;
  if (!set.verification && !again) return null;
  return (
    <VerificationStatus
      key={again ? "again" : "first"}
      siteId={siteId}
      changeSetId={set.id}
      verification={again ? undefined : set.verification}
      poll={again}
      canUndo={props.canUndo}
      onUndone={props.onUndone}
    />
  );
}

/** Which written items the owner ticked for a partial undo. */
function usePicks(): Omit<Chooser, "enabled"> & { clear(): void } {
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  return {
    chosen,
    toggle: (ids, on) => {
      const next = new Set(chosen);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      setChosen(next);
    },
    clear: () => setChosen(new Set()),
  };
}

function ChangeSetCard({ siteId, set, focused }: { siteId: string; set: ChangeSetSummary; focused: boolean }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const base = `/sites/${siteId}/changes/${set.id}`;
  const picks = usePicks();
  const undo = useSetUndo(base, () => {
    picks.clear();
    router.refresh();
  });
  const status = undo.undoneTo ?? set.status;
  const { diff, loading, loadError, moreItems, wholeItem } = useSetDiff(base, open, status);
  const rehearsal = set.target === "sandbox";
  // A rehearsal (sandbox set) is applied or discarded on its review page, not undone here.
  const undoable = !rehearsal && UNDOABLE.has(status);
  const chosenItems = rehearsal ? [] : (diff?.items ?? []).filter((i) => i.status === "applied");
  const chooser: Chooser = { enabled: undoable && chosenItems.length > 1, chosen: picks.chosen, toggle: picks.toggle };
  const { chosen } = picks;

  useEffect(() => {
    if (focused) setOpen(true);
  }, [focused]);

  return (
    <li id={set.id} className={`card ${styles.set}`} data-testid="change-set" data-status={status}>
      <SetHead set={set} status={status} />
      {!rehearsal ? (
        <SetVerification
          siteId={siteId}
          set={set}
          again={undo.verifyAgain}
          canUndo={undoable}
          onUndone={() => {
            undo.undoneElsewhere();
            router.refresh();
          }}
        />
      ) : null}
      {rehearsal ? <RehearsalLink siteId={siteId} setId={set.id} status={status} /> : null}
      {!rehearsal && status === "pending" ? (
        <p data-testid="pending-review">
          <a href={`/sites/${siteId}/review/${set.id}`}>Review it: approve or deny</a>
        </p>
      ) : null}
      {set.itemCount > 0 ? (
        <p>
          <button
            type="button"
            className="link"
            aria-expanded={open}
            data-testid="toggle-diff"
            onClick={() => setOpen(!open)}
          >
            {open ? "Hide the changes" : "Show the changes"}
          </button>
        </p>
      ) : null}
      {open ? (
        <OpenDiff
          state={{ diff, loading, loadError }}
          left={set.itemCount - (diff?.items.length ?? 0)}
          chooser={chooser}
          onMore={() => void moreItems()}
          onWhole={(id) => void wholeItem(id)}
        />
      ) : null}
      {undo.failure ? <UndoFailure failure={undo.failure} /> : null}
      {undoable ? (
        <UndoActions
          busy={undo.busy}
          label={status === "applied" ? "Undo" : "Undo the rest"}
          chosen={chosen}
          onUndo={(ids) => void undo.undo(ids)}
        />
      ) : null}
    </li>
  );
}

export function ChangesList({ siteId, firstPage }: { siteId: string; firstPage: ChangeSetList }) {
  const [older, setOlder] = useState<ChangeSetSummary[]>([]);
  const [cursor, setCursor] = useState(firstPage.nextCursor);
  const [linked, setLinked] = useState<ChangeSetSummary | undefined>();
  const [focus, setFocus] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | undefined>();

  // After a refresh the first page is new; older pages already loaded stay, without repeating a set.
  const firstIds = new Set(firstPage.changeSets.map((s) => s.id));
  const shown = [
    ...(linked && !firstIds.has(linked.id) && !older.some((s) => s.id === linked.id) ? [linked] : []),
    ...firstPage.changeSets,
    ...older.filter((s) => !firstIds.has(s.id)),
  ];

  // The set the address names (the chat's link to a turn's changes) opens by itself; else the newest.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only on arrival
  useEffect(() => {
    const named = decodeURIComponent(window.location.hash.slice(1));
    if (!named || firstIds.has(named)) {
      setFocus(named || firstPage.changeSets[0]?.id);
      return;
    }
    void readJson<ChangeSetPage>(`/sites/${siteId}/changes/${encodeURIComponent(named)}`).then((answer) => {
      if (!answer.ok) return setFocus(firstPage.changeSets[0]?.id);
      setLinked(summaryOf(answer.data));
      setFocus(named);
      requestAnimationFrame(() => document.getElementById(named)?.scrollIntoView());
    });
  }, []);

  const loadOlder = async () => {
    if (!cursor) return;
    setLoading(true);
    setLoadError(undefined);
    const answer = await readJson<ChangeSetList>(`/sites/${siteId}/changes?cursor=${encodeURIComponent(cursor)}`);
    setLoading(false);
    if (!answer.ok) return setLoadError(answer.message);
    setOlder((sets) => [...sets, ...answer.data.changeSets]);
    setCursor(answer.data.nextCursor);
  };

  if (shown.length === 0) return <p className="muted">The assistant has not changed anything on this site yet.</p>;
  return (
    <>
      <ol className={styles.sets}>
        {shown.map((set) => (
          <ChangeSetCard key={set.id} siteId={siteId} set={set} focused={focus === set.id} />
        ))}
      </ol>
      {loadError ? (
        <p className="error" role="alert">
          {loadError}
        </p>
      ) : null}
      {cursor ? (
        <p>
          <button type="button" className="secondary" disabled={loading} onClick={() => void loadOlder()}>
            {loading ? "Loading…" : "Show older changes"}
          </button>
        </p>
      ) : null}
    </>
  );
}
