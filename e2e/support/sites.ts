import { findSiteById } from "../../lib/db/queries";
import { siteClientFor } from "../../lib/sites/sites";

/** A signed GET /sitewright/v1/info with the credentials the service stored for the site. */
export async function getSiteByIdForTests(siteId: string) {
  const site = await findSiteById({ siteId });
  if (!site) throw new Error(`no site ${siteId}`);
  return siteClientFor(site).get("/sitewright/v1/info");
}
