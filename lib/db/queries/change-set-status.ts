/**
 * A change set's status, derived from its items in SQL, for the statements that store it (refreshChangeSetStatus,
 * finishRehearsalApply): one definition, so a live set and a rehearsal cannot disagree on what a status means.
 */
import { eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Db } from "../index";
import { type ChangeSetStatus, changeItems, changeRuns, changeSets } from "../schema";

/**
 * Each set's status as its items make it, one row per set (`id`, `status`), for an UPDATE ... FROM in the same
 * statement (docs/change-sets.md, "Status"). One meaning for live and sandbox sets: an item is *on the live site*
 * when a live set wrote it (applied, or being undone) or an Apply made a rehearsal's item live (`madeLiveBy`); then
 * `applied` = every item is on the live site, `partially_applied` = some are and some are not. Items waiting or being
 * written make the set `pending`; undone items make it `undone` or `partially_undone`; none on the live site leaves
 * a live set `discarded` and a rehearsal `pending` (waiting for Apply). `keep`: the lifecycle statuses a rehearsal
 * holds whatever its items (a claim for Apply, a Discard). A run under way (lib/changes/journal.ts) makes the set
 * `undoing` or `applying` until it is finished, by this process or, after a restart, by another.
 */
export function statusFromItems(db: Db, ids: string[], keep: ChangeSetStatus[]) {
  const count = (condition: SQL) => sql`count(${changeItems.id}) filter (where ${condition})`;
  const onLive = sql`((${changeSets.target} = 'live' and ${changeItems.status} in ('applied', 'undoing')) or (${changeSets.target} = 'sandbox' and ${changeItems.madeLiveBy} is not null))`;
  const kept = keep.length
    ? sql`${changeSets.status} in (${sql.join(
        keep.map((status) => sql`${status}`),
        sql`, `,
      )})`
    : sql`false`;
  const running = (kind: SQL) =>
    sql`exists (select 1 from ${changeRuns} where ${changeRuns.changeSetId} = ${changeSets.id} and ${changeRuns.state} = 'running' and ${kind})`;
  const status = sql<ChangeSetStatus>`case
    when ${running(sql`${changeRuns.kind} = 'undo'`)} then 'undoing'
    when ${running(sql`${changeRuns.kind} <> 'undo'`)} then 'applying'
    when ${changeSets.target} = 'sandbox' and ${kept} then ${changeSets.status}
    when ${count(sql`${changeItems.status} in ('pending', 'writing')`)} > 0 then 'pending'
    when ${count(sql`${changeItems.status} = 'undone'`)} > 0 then
      case when ${count(sql`${changeItems.status} in ('applied', 'undoing')`)} > 0 then 'partially_undone' else 'undone' end
    when ${count(onLive)} = 0 then case when ${changeSets.target} = 'sandbox' then 'pending' else 'discarded' end
    when ${count(onLive)} = count(${changeItems.id}) then 'applied'
    else 'partially_applied'
  end`;
  return db
    .select({ id: sql<string>`${changeSets.id}`.as("set_id"), status: status.as("next_status") })
    .from(changeSets)
    .leftJoin(changeItems, eq(changeItems.changeSetId, changeSets.id))
    .where(inArray(changeSets.id, ids))
    .groupBy(changeSets.id)
    .as("next");
}
