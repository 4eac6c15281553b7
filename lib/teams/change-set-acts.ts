/**
 * A member's act on one of the site's change sets (docs/teams.md): the role is checked, then the second-person
 * rule (whoever asked for the set or any of its items cannot approve, apply or undo it when the site asks for a
 * second person), then the act runs as the acting person (`withActor`, so the change audit names them) on the set
 * as it is stored, and the audit chain records it.
 */
import { withActor } from "@/lib/audit/actor-context";
import { type AuditAction, recordAuditSafely } from "@/lib/audit/chain";
import type { ChangeActivity, PublicChangeSet } from "@/lib/changes/change-sets";
import { findChangeSetAskers, listChangeActivity } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { actorOf, type Person, siteAccess } from "./access";
import type { SiteRight } from "./roles";

type ActRule = { right: SiteRight; secondPerson: boolean; audit?: AuditAction };

export const CHANGE_SET_ACTS = {
  show: { right: "read", secondPerson: false },
  approve: { right: "approve", secondPerson: true, audit: "approve" },
  deny: { right: "approve", secondPerson: false, audit: "deny" },
  apply: { right: "approve", secondPerson: true, audit: "apply" },
  undo: { right: "approve", secondPerson: true, audit: "undo" },
  reject: { right: "approve", secondPerson: false, audit: "reject" },
  edit: { right: "approve", secondPerson: false, audit: "edit" },
  // A rehearsal thrown away changes nothing live: whoever may propose may discard.
  discard: { right: "propose", secondPerson: false, audit: "discard" },
} as const satisfies Record<string, ActRule>;
export type ChangeSetAct = keyof typeof CHANGE_SET_ACTS;

/** The set as the workflows address it: under the account its chat stored it in. */
export type StoredChangeSetRequest = { userId: string; siteId: string; changeSetId: string };

export const secondPersonRequired = () =>
  new AppError(
    "second_person_required",
    "This site asks for a second person: someone other than whoever asked for this change must approve, apply or undo it.",
  );

export async function actOnChangeSet<T>(
  person: Person,
  ids: { siteId: string; changeSetId: string },
  act: ChangeSetAct,
  work: (request: StoredChangeSetRequest) => Promise<T>,
): Promise<T> {
  const rule: ActRule = CHANGE_SET_ACTS[act];
  const { site } = await siteAccess({ userId: person.id, siteId: ids.siteId }, rule.right);
  const set = await findChangeSetAskers({ id: ids.changeSetId, siteId: site.id });
  if (!set) throw new AppError("not_found", "There is no such change set for this site.");
  if (rule.secondPerson && site.requireSecondPerson && set.askers.includes(person.id)) throw secondPersonRequired();
  const actor = actorOf(person);
  const result = await withActor(actor, () =>
    work({ userId: set.userId, siteId: site.id, changeSetId: ids.changeSetId }),
  );
  if (rule.audit) {
    await recordAuditSafely({ siteId: site.id, actor, action: rule.audit, subject: { changeSetId: ids.changeSetId } });
  }
  return result;
}

/** The set with who clicked what on it (`activity`), for cards and history. */
export async function withActivity<S extends Pick<PublicChangeSet, "id">>(
  set: S,
): Promise<S & { activity: ChangeActivity[] }> {
  const [withIt] = await withActivities([set]);
  return withIt!;
}

/** Each set with its activity, in one query. */
export async function withActivities<S extends Pick<PublicChangeSet, "id">>(
  sets: S[],
): Promise<Array<S & { activity: ChangeActivity[] }>> {
  const rows = await listChangeActivity({ changeSetIds: sets.map((set) => set.id) });
  return sets.map((set) => ({
    ...set,
    activity: rows
      .filter((row) => row.changeSetId === set.id)
      .map((row) => ({ action: row.action, actor: row.actor, at: row.at.toISOString() })),
  }));
}
