"use client";
/** One card per tool call: what the assistant did, on which page, before → after for changes, approve/deny. */
import type { JobPart } from "@/lib/agent/chat-message";
import { getToolName } from "ai";
import type { ChatPart } from "@/lib/agent/chat-message";
import { useParams } from "next/navigation";
import type { ReactNode } from "react";
import { jobBudgetUse } from "@/lib/jobs/budget-use";
import { BudgetUse } from "../jobs/budget-use";
import { useLiveJob } from "../jobs/use-live-job";
import { VerificationStatus } from "../verification-status";
import { useChatApproval } from "./approval-context";
import { describeTarget } from "./card-words";
import { ChangeDiff, type ChangeItemView } from "./change-diff";
import styles from "./chat.module.css";
import { useHydrated } from "@/app/use-hydrated";

export type ToolPart = Extract<ChatPart, { toolCallId: string }>;

function show(value: unknown): string {
  if (value === undefined || value === null || value === "") return "(empty)";
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return text.length > 1500 ? `${text.slice(0, 1500)}…` : text;
}

const fields = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? { ...value } : value === undefined ? {} : { value };

function BeforeAfter({ before, after }: { before?: unknown; after?: unknown }) {
  if (before === undefined && after === undefined) return null;
  const b = fields(before);
  const a = fields(after);
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return (
    <div className="scrollX">
      <table className={styles.diff} data-testid="before-after">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key}>
              <th scope="row">{key}</th>
              <td>
                <pre>{key in b ? show(b[key]) : "—"}</pre>
              </td>
              <td>
                <pre>{key in a ? show(a[key]) : "—"}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The change items a write planned or made (the stream's `data-change` part for this tool call). */
export type ToolChange = { changeSetId: string; status: string; items: ChangeItemView[] };

/** The frame every card shares: which tool, on which target, and its state for tests and styles. */
function Card({
  state,
  heading,
  approval,
  children,
}: {
  state: string;
  heading: ReactNode;
  approval?: boolean;
  children: ReactNode;
}) {
  return (
    <div
      className={approval ? `${styles.tool} ${styles.approval}` : styles.tool}
      data-testid="tool-card"
      data-state={state}
    >
      {heading}
      {children}
    </div>
  );
}

/** A write waiting for the person: exactly what would change, and Approve / Deny (none where only read). */
function ApprovalRequest({
  part,
  change,
  what,
  onAnswer,
}: {
  part: Extract<ToolPart, { state: "approval-requested" }>;
  change?: ToolChange;
  what: string;
  onAnswer?: (id: string, approved: boolean) => void;
}) {
  const approval = useChatApproval();
  // Before hydration a click would be lost: the buttons wait (use-hydrated.ts).
  const hydrated = useHydrated();
  if (!approval.canApprove) return <WaitsForApprover part={part} change={change} what={what} onAnswer={onAnswer} />;
  return (
    <>
      {change ? (
        <>
          <p>Visitors would see this change, so it waits for your approval. Exactly this will change:</p>
          <ChangeDiff items={change.items} />
          {change.items.some((item) => item.restsOn) ? (
            <p className="muted" data-testid="rests-on">
              This change was planned on top of an earlier change to the same item above: it is written only with or
              after that one (approve both; if you deny that one, this one is not written).
            </p>
          ) : null}
        </>
      ) : (
        <>
          <p>This changes your live site and needs your approval. Exactly this will run:</p>
          <pre className="scrollX">{show(part.input)}</pre>
        </>
      )}
      {!onAnswer ? <span className="muted">Not answered; it did not run.</span> : null}
      <div className={styles.actions} hidden={!onAnswer}>
        <button
          type="button"
          className="danger"
          aria-label={`Approve: ${what}`}
          disabled={!hydrated}
          onClick={() => onAnswer?.(part.approval.id, true)}
        >
          Approve
        </button>
        <button
          type="button"
          className="secondary"
          aria-label={`Deny: ${what}`}
          disabled={!hydrated}
          onClick={() => onAnswer?.(part.approval.id, false)}
        >
          Deny
        </button>
      </div>
    </>
  );
}

/**
 * The same request where the person may not approve it (docs/teams.md): who approves instead, and where (the
 * change's review page); the person can still withdraw it (Deny).
 */
function WaitsForApprover(props: {
  part: Extract<ToolPart, { state: "approval-requested" }>;
  change?: ToolChange;
  what: string;
  onAnswer?: (id: string, approved: boolean) => void;
}) {
  const { part, change, what, onAnswer } = props;
  const { id: siteId } = useParams<{ id: string }>();
  const approval = useChatApproval();
  const hydrated = useHydrated();
  const who =
    !approval.canApprove && approval.waitsFor === "second-person"
      ? "This site asks for a second person: someone other than you, the site's owner or an approver, approves it."
      : "Your role lets you ask for changes; the site's owner or an approver approves them.";
  return (
    <>
      <p data-testid="waits-for-approver">
        Visitors would see this change, so it waits for approval. {who}
        {change && siteId ? (
          <>
            {" "}
            <a href={`/sites/${siteId}/review/${change.changeSetId}`}>Its review page</a> shows where it stands.
          </>
        ) : null}
      </p>
      {change ? <ChangeDiff items={change.items} /> : <pre className="scrollX">{show(part.input)}</pre>}
      {onAnswer ? (
        <div className={styles.actions}>
          <button
            type="button"
            className="secondary"
            aria-label={`Withdraw: ${what}`}
            disabled={!hydrated}
            onClick={() => onAnswer(part.approval.id, false)}
          >
            Withdraw
          </button>
        </div>
      ) : (
        <span className="muted">Not answered; it did not run.</span>
      )}
    </>
  );
}

type SuccessfulOutput = Extract<
  Extract<ToolPart, { state: "output-available"; type: `tool-${string}` }>["output"],
  { ok: true }
>;

/** The bulk job a start_bulk_job call started (its data), if this is one. */
const jobOf = (output: SuccessfulOutput) => (output.data as { job?: JobPart } | undefined)?.job;

/**
 * A started bulk job in the chat: what was selected and counted, where its review queue is, and its own budget as it
 * runs (polled), beside the turn's budget under the message.
 */
function JobLink({ siteId, job: started }: { siteId: string; job: JobPart }) {
  const [job] = useLiveJob(siteId, started);
  return (
    <div data-testid="job-card" data-status={job.status}>
      <p data-testid="job-link">
        {job.selection.count} {job.selection.description}.{" "}
        <a href={`/sites/${siteId}/jobs/${job.id}/queue`}>Follow the job and review its changes</a>
      </p>
      {job.limits ? <BudgetUse label="This job's own budget" figures={jobBudgetUse(job)} testId="job-budget" /> : null}
    </div>
  );
}

/** What a tool that ran did: its summary, a link to the result, a warning for flagged content, and the diff. */
function ToolResult({ output, change }: { output: SuccessfulOutput; change?: ToolChange }) {
  const { id: siteId } = useParams<{ id: string }>();
  return (
    <>
      <span className="ok">{output.summary}</span>
      {output.target?.link ? (
        <>
          {" "}
          <a href={output.target.link} target="_blank" rel="noopener noreferrer">
            View {output.target.title ? `“${output.target.title}”` : "on the site"}
          </a>
        </>
      ) : null}
      {output.flagged ? (
        <p className="warn" role="note">
          This content contains text aimed at the assistant (“{output.flagged}”). It was ignored; anything visitors
          would see still waits for your approval.
        </p>
      ) : null}
      {jobOf(output) && siteId ? (
        <JobLink siteId={siteId} job={jobOf(output)!} />
      ) : change ? (
        <ChangeDiff items={change.items} />
      ) : (
        <BeforeAfter before={output.before} after={output.after} />
      )}
      {change?.status === "applied" &&
      siteId &&
      change.items.some((item) => (item as { visible?: boolean }).visible) ? (
        <VerificationStatus siteId={siteId} changeSetId={change.changeSetId} poll />
      ) : null}
    </>
  );
}

/** The card's heading: what was asked, and of what (the target and its name, as the site calls it). */
function CardHeading({ label, described }: { label: string; described: ReturnType<typeof describeTarget> }) {
  return (
    <div className={styles.toolHead}>
      <strong>{label}</strong>
      {described ? (
        <span className="muted" data-testid="card-target">
          {" "}
          · {described.target}
          {described.name ? ` “${described.name}”` : ""}
        </span>
      ) : null}
    </div>
  );
}

export function ToolCard({
  part,
  labels,
  onAnswer,
  change,
}: {
  part: ToolPart;
  labels: Record<string, string>;
  /** Absent where the conversation is only read (a disconnected site): no buttons to press. */
  onAnswer?: (id: string, approved: boolean) => void;
  change?: ToolChange;
}) {
  const name = getToolName(part);
  const label = labels[name] ?? `Asked for “${name}”`;
  const described = describeTarget(name, part.input, change?.items);
  const target = described?.target;
  const heading = <CardHeading label={label} described={described} />;

  switch (part.state) {
    case "input-streaming":
    case "input-available":
      return (
        <Card state="running" heading={heading}>
          <span className="muted">Working…</span>
        </Card>
      );
    case "approval-requested":
      return (
        <Card state="approval" heading={heading} approval>
          <ApprovalRequest
            part={part}
            change={change}
            what={target ? `${label} ${target}` : label}
            onAnswer={onAnswer}
          />
        </Card>
      );
    case "approval-responded":
      return (
        <Card state="answered" heading={heading}>
          <span className="muted">{part.approval.approved ? "Approved — running…" : "Denied."}</span>
        </Card>
      );
    case "output-denied":
      return (
        <Card state="denied" heading={heading}>
          <span className="warn">Not done: {part.approval.reason ?? "you denied it."}</span>
        </Card>
      );
    case "output-error":
      // The call never ran (a tool the assistant may not use, arguments that failed the check): the run went on.
      return (
        <Card state="refused" heading={heading}>
          <span className="warn">Not done: {part.errorText}</span>
        </Card>
      );
    case "output-available":
      // A dynamic tool is one the server did not know (never run): it cannot have a typed output.
      if (part.type === "dynamic-tool") return null;
      return part.output.ok ? (
        <Card state="done" heading={heading}>
          <ToolResult output={part.output} change={change} />
        </Card>
      ) : (
        <Card state="error" heading={heading}>
          <span className="error">{part.output.error}</span>
        </Card>
      );
  }
}
