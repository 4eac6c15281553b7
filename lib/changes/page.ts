/**
 * What the Changes page shows: the site's name and the first page of its change set summaries, newest first
 * (undefined if not the user's). Diffs load when a set is opened.
 */
import { findSiteOrItsRepairForUser, findSiteWithRole, listChangeActivity } from "@/lib/db/queries";
import { type ChangeSetList, listSiteChangeSets } from "./change-sets";

export type ChangesPageData = { site: { id: string; url: string; name: string | null }; changeSets: ChangeSetList };

export async function loadChangesPage(input: { userId: string; siteId: string }): Promise<ChangesPageData | undefined> {
  // A re-pairing's or a folded row's id shows the site it belongs to (the page then moves to the site's address).
  // A member sees the site's change sets too, whoever asked for them (docs/teams.md).
  const site = (await findSiteOrItsRepairForUser(input)) ?? (await findSiteWithRole(input))?.site;
  if (!site) return undefined;
  const list = await listSiteChangeSets({ userId: input.userId, siteId: site.id });
  const activity = await listChangeActivity({ changeSetIds: list.changeSets.map((set) => set.id) });
  const changeSets = list.changeSets.map((set) => ({
    ...set,
    activity: activity
      .filter((row) => row.changeSetId === set.id)
      .map((row) => ({ action: row.action, actor: row.actor, at: row.at.toISOString() })),
  }));
  return { site: { id: site.id, url: site.url, name: site.name }, changeSets: { ...list, changeSets } };
}
