/**
 * What the Changes page shows: the site's name and the first page of its change set summaries, newest first
 * (undefined if not the user's). Diffs load when a set is opened.
 */
import { findSiteOrItsRepairForUser } from "@/lib/db/queries";
import { type ChangeSetList, listSiteChangeSets } from "./change-sets";

export type ChangesPageData = { site: { id: string; url: string; name: string | null }; changeSets: ChangeSetList };

export async function loadChangesPage(input: { userId: string; siteId: string }): Promise<ChangesPageData | undefined> {
  // A re-pairing's or a folded row's id shows the site it belongs to (the page then moves to the site's address).
  const site = await findSiteOrItsRepairForUser(input);
  if (!site) return undefined;
  return {
    site: { id: site.id, url: site.url, name: site.name },
    changeSets: await listSiteChangeSets({ userId: input.userId, siteId: site.id }),
  };
}
