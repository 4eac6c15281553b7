/**
 * A process of its own for test/reliability/apply-restart.test.ts, on the database DATABASE_URL names:
 * `apply|undo <userId> <siteId> <changeSetId>` clicks Apply or Undo as the owner would (the test kills it with
 * SIGKILL in the middle); `approve-call <userId> <siteId> <conversationId> <turnId> <toolCallId>...` is the chat's
 * write of the approved cards (the first named call, with the others approved in the same request); `sweep
 * <changeSetId>` is the next instance's start-up sweeper, run until that change set has no Apply or Undo left under
 * way. Prints "STARTED" first and "FINISHED" last.
 */
import { writeApprovedPlan } from "@/lib/agent/writes";
import { findRunningRun, findSiteById } from "@/lib/db/queries";
import { siteClientFor } from "@/lib/sites/sites";
import { applyChangeSetForOwner, undoChangeSetForOwner } from "@/lib/workflows/change-set-actions";
import { sweepInterruptedRuns } from "@/lib/workflows/resume-runs";

const [action, ...args] = process.argv.slice(2);
process.stdout.write("STARTED\n");
if (action === "sweep") {
  const [changeSetId] = args;
  while (await findRunningRun(changeSetId!)) {
    await sweepInterruptedRuns((site) => siteClientFor(site));
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
} else if (action === "approve-call") {
  const [userId, siteId, conversationId, turnId, ...calls] = args;
  const site = await findSiteById({ siteId: siteId! });
  const scope = { userId: userId!, siteId: siteId!, conversationId: conversationId!, turnId: turnId! };
  await writeApprovedPlan(
    {
      scope: { ...scope, target: "live" },
      client: siteClientFor(site!),
      plans: new Map(),
      emitChange: () => {},
      approvedToolCalls: new Set(calls),
    },
    calls[0]!,
  );
} else {
  const [userId, siteId, changeSetId] = args;
  const act = action === "undo" ? undoChangeSetForOwner : applyChangeSetForOwner;
  await act({ userId: userId!, siteId: siteId!, changeSetId: changeSetId! });
}
process.stdout.write("FINISHED\n");
process.exit(0);
