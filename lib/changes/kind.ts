/**
 * What kind a change set is, said once: a chat turn's or an MCP call's (`turn`), a bulk job's queue (`job`: the
 * job's own set, or the live set an Apply of a job's rehearsal wrote, `job:<id>:apply-…`), or a sandbox rehearsal
 * (`rehearsal`, a job's or a conversation's). Apply, Undo, Discard and the queue's actions branch on it.
 */
import type { ChangeSet, Job } from "@/lib/db/schema";

export type ChangeSetKind = "turn" | "job" | "rehearsal";

export function changeSetKind(
  set: Pick<ChangeSet, "target" | "turnId">,
  job: Pick<Job, "id"> | undefined,
): ChangeSetKind {
  if (set.target === "sandbox") return "rehearsal";
  if (job || set.turnId.startsWith("job:")) return "job";
  return "turn";
}
