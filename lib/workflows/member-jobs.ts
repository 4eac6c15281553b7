/**
 * A member's door to a site's bulk jobs (docs/teams.md): whoever may read the site sees its jobs, whoever started
 * them; cancelling (planning stops, what still waits is rejected, nothing live changes) is for the person who started
 * the job, if they may still propose, or anyone with the approve right. The job is then addressed under the account
 * that started it.
 */
import { withActor } from "@/lib/audit/actor-context";
import { recordAuditSafely } from "@/lib/audit/chain";
import { findJobOfSite } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { actorOf, forbidden, type Person, siteAccess } from "@/lib/teams/access";
import { can } from "@/lib/teams/roles";

export type StoredJobRequest = { userId: string; siteId: string; jobId: string };

export async function actOnJob<T>(
  person: Person,
  ids: { siteId: string; jobId: string },
  act: "show" | "cancel",
  work: (request: StoredJobRequest) => Promise<T>,
): Promise<T> {
  const { site, role } = await siteAccess({ userId: person.id, siteId: ids.siteId }, "read");
  const job = await findJobOfSite({ id: ids.jobId, siteId: site.id });
  if (!job) throw new AppError("not_found", "There is no such job.");
  if (act === "cancel") {
    const right = job.userId === person.id ? "propose" : "approve";
    if (!can(role, right)) throw forbidden(right);
  }
  const actor = actorOf(person);
  const result = await withActor(actor, () => work({ userId: job.userId, siteId: site.id, jobId: job.id }));
  if (act === "cancel") {
    const subject = { jobId: job.id, changeSetId: job.changeSetId };
    await recordAuditSafely({ siteId: site.id, actor, action: "reject", subject, details: { cancelled: true } });
  }
  return result;
}
