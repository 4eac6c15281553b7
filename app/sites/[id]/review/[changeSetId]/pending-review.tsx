"use client";
/**
 * A pending change set on the live site (what an MCP client proposed, docs/mcp.md): the diff as the chat's card shows
 * it, Approve and Deny; after Approve, the look at the live site. Nothing is written before the owner's click.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { PublicChangeSet } from "@/lib/changes/change-sets";
import { type CombinedRow, combineByTarget } from "@/lib/changes/combined";
import { CombinedDiff } from "../../chat/change-diff";
import { VerificationStatus } from "../../verification-status";
import { useHydrated } from "@/app/use-hydrated";

type Answer = {
  changeSet?: PublicChangeSet;
  error?: { message?: string; details?: { items?: Array<{ title: string; reason: string }> } };
};

const STATUS: Record<string, string> = {
  pending: "Waiting for approval",
  applied: "Applied",
  discarded: "Not applied",
  undone: "Undone",
  partially_undone: "Partly undone",
  partially_applied: "Partly applied",
};

/** Approve and Deny, saying how many waiting changes the page drew (the click covers those: `upTo`). */
function Decision(props: { waiting: number; busy: boolean; decide(decision: "approve" | "deny"): void }) {
  const { waiting, busy, decide } = props;
  return (
    <p>
      <button type="button" disabled={busy} onClick={() => decide("approve")}>
        {waiting > 1 ? `Approve all ${waiting}` : "Approve"}
      </button>{" "}
      <button type="button" className="secondary" disabled={busy} onClick={() => decide("deny")}>
        {waiting > 1 ? `Deny all ${waiting}` : "Deny"}
      </button>
    </p>
  );
}

/** How a combined row's changes are clicked here: the whole set at once (lib/changes/chains.ts writes them in order). */
const TOGETHER = "Approve writes them together, in this order, and Undo takes them back as one.";

/**
 * `rows`: the set's diff, one row per target (the page's data, lib/workflows/review.ts); `refusal`: why this person
 * may not approve the set (their role, or they asked for it on a two-person site).
 */
export function PendingReview({
  siteId,
  changeSet,
  rows,
  refusal,
}: {
  siteId: string;
  changeSet: PublicChangeSet;
  rows: CombinedRow[];
  refusal?: string;
}) {
  const router = useRouter();
  const [current, setCurrent] = useState({ set: changeSet, rows });
  const upTo = changeSet.items.at(-1)?.id;
  const waiting = changeSet.items.filter((item) => item.status === "pending").length;
  const [busy, setBusy] = useState(false);
  // The buttons answer once the page has hydrated: a click on the server's HTML before then would do nothing at all.
  const hydrated = useHydrated();
  const [error, setError] = useState<string>();
  const [approved, setApproved] = useState(false);

  const decide = async (decision: "approve" | "deny") => {
    setBusy(true);
    setError(undefined);
    try {
      const res = await fetch(`/sites/${siteId}/changes/${changeSet.id}/${decision}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        // The last item this page drew: a change planned after it (a later turn's) is neither approved nor denied.
        body: JSON.stringify(upTo ? { upTo } : {}),
      });
      const body = (await res.json().catch(() => ({}))) as Answer;
      if (!res.ok || !body.changeSet) {
        const items = body.error?.details?.items?.map((i) => ` “${i.title}”: ${i.reason}`).join("") ?? "";
        setError(`${body.error?.message ?? "That did not work. Try again."}${items}`);
        return;
      }
      setCurrent({ set: body.changeSet, rows: combineByTarget(body.changeSet.items) });
      setApproved(decision === "approve");
      router.refresh();
    } catch {
      setError("Sitewright could not be reached. Check your connection and try again.");
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="pending-title">
      <h2 id="pending-title">What would change</h2>
      <CombinedDiff rows={current.rows} note={TOGETHER} />
      <p data-testid="review-status" role="status">
        <strong>{STATUS[current.set.status] ?? current.set.status}</strong>
      </p>
      {current.set.status === "pending" && refusal ? (
        <p className="muted" data-testid="not-yours-to-approve">
          {refusal}
        </p>
      ) : null}
      {current.set.status === "pending" && !refusal ? (
        <Decision waiting={waiting} busy={busy || !hydrated} decide={(decision) => void decide(decision)} />
      ) : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {current.set.status !== "pending" && current.set.status !== "discarded" ? (
        <VerificationStatus
          siteId={siteId}
          changeSetId={current.set.id}
          verification={current.set.verification}
          poll={approved}
        />
      ) : null}
    </section>
  );
}
