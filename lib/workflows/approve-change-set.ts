/**
 * Use case: the owner approves or denies a pending live change set from Sitewright's own pages (what an MCP client's
 * proposal waits for; docs/mcp.md). Approving writes exactly what waits, then the live site is checked as a visitor
 * sees it (verify-change-set.ts).
 */
import { approvePendingChangeSet, denyPendingChangeSet, type PendingRequest } from "@/lib/changes/approve";
import { getChangeSet, itemsCovered } from "@/lib/changes/change-sets";
import type { Site } from "@/lib/db/schema";
import { siteClientFor } from "@/lib/sites/sites";
import { getSiteOfRecord } from "@/lib/teams/access";
import type { SiteClient } from "@/lib/sites/types";
import { scheduleVerification } from "./verify-change-set";

let clientOverride: ((site: Site) => SiteClient) | undefined;
/** Tests: a site client trusting the local test CA; `undefined` restores the default. */
export function setApprovalClientForTests(factory: ((site: Site) => SiteClient) | undefined) {
  clientOverride = factory;
}

export async function approveChangeSetForOwner(request: PendingRequest) {
  const site = await getSiteOfRecord(request);
  const before = await getChangeSet(request); // 404 before touching the site's credentials
  const pendingIds = itemsCovered(before.items, request)
    .filter((item) => item.status === "pending")
    .map((item) => item.id);
  const changeSet = await approvePendingChangeSet(request, (clientOverride ?? siteClientFor)(site));
  void scheduleVerification({ ...request, trigger: "write", itemIds: pendingIds });
  return changeSet;
}

export async function denyChangeSetForOwner(request: PendingRequest) {
  await getSiteOfRecord(request);
  return denyPendingChangeSet(request);
}
