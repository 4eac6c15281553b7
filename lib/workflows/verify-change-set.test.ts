/**
 * The look at the live site runs after the owner's Undo (and after a write approved in Sitewright), on the real
 * WordPress with our plugin: the change set reads `pending`, then `verified` with the page's address, and the change
 * audit records it; a draft's change set gets no verification at all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as undoRoute } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { operationsByName } from "@/lib/agent/operations";
import { pairAgentSite, startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { getChangeSet, recordPendingPlan, type TurnScope } from "@/lib/changes/change-sets";
import { writeThroughAgent } from "@/test/changes";
import { findSiteForUser, listChangeAudit } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { siteClientFor } from "@/lib/sites/sites";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { runAsAdmin } from "@/test/wordpress";
import { approveChangeSetForOwner } from "./approve-change-set";
import { setVerificationDepsForTests } from "./verify-change-set";

useTestDatabase();

let wp: AgentTestSite;
let owner: { cookie: string; id: string };
let siteId: string;

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("verify");
  siteId = await pairAgentSite(wp, owner.id);
  setVerificationDepsForTests({ delays: [0, 300] });
}, 120_000);

afterAll(async () => {
  setVerificationDepsForTests(undefined);
  await wp?.local.stop();
});

const scope = (turnId: string): TurnScope => ({
  userId: owner.id,
  siteId,
  conversationId: `verify-${turnId}`,
  turnId,
  target: "live",
});

/** The change set once a look newer than `after` (a checkedAt) has finished. */
async function settled(changeSetId: string, after?: string) {
  for (let i = 0; i < 60; i++) {
    const set = await getChangeSet({ userId: owner.id, siteId, changeSetId });
    const done = set.verification?.status !== "pending" && set.verification?.checkedAt;
    if (done && (!after || done > after)) return set;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("the verification did not finish");
}

const published = (title: string) =>
  runAsAdmin<number>(
    wp.local.wpPath,
    "echo json_encode(wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args, 'post_content' => '<!-- wp:paragraph --><p>Hello.</p><!-- /wp:paragraph -->')));",
    title,
  );

describe("the look at the live site after the owner's clicks", () => {
  it("verifies an approved write and then its undo, and audits both", async () => {
    const id = await published("Delivery");
    const client = siteClientFor((await findSiteForUser({ userId: owner.id, siteId }))!);
    const op = operationsByName.get("update_page")!;
    const plan = await op.plan!(client, op.input.parse({ id, title: "Delivery times" }));
    const { changeSetId } = await recordPendingPlan(scope("approve"), "call_1", plan.items);

    await approveChangeSetForOwner({ userId: owner.id, siteId, changeSetId });
    const afterWrite = await settled(changeSetId);
    expect(afterWrite.verification).toMatchObject({ status: "verified" });
    expect(afterWrite.verification?.urls[0]?.url).toContain(wp.local.url);

    const undone = await call(undoRoute as Parameters<typeof call>[0], {
      method: "POST",
      body: {},
      headers: { origin: "http://localhost:3000" },
      cookie: owner.cookie,
      params: { id: siteId, changeSetId },
    });
    expect(undone.status).toBe(200);
    expect(undone.json.changeSet.verification ?? { status: "pending" }).toMatchObject({ status: "pending" });
    const afterUndo = await settled(changeSetId, afterWrite.verification?.checkedAt);
    expect(afterUndo.verification).toMatchObject({ status: "verified" });
    const verifies = (await listChangeAudit({ changeSetId })).filter((row) => row.action === "verify");
    expect(verifies.map((row) => row.outcome)).toEqual(["verified", "verified"]);
    expect(verifies[1]?.detail).toContain("after undo");
  });

  it("has nothing to look at for a draft, and says so by recording no verification", async () => {
    const op = operationsByName.get("create_draft")!;
    const client = siteClientFor((await findSiteForUser({ userId: owner.id, siteId }))!);
    const result = await writeThroughAgent({ scope: scope("draft"), client }, op, { title: "Draft plan" });
    const changeSetId = (result.data as { changeSetId: string }).changeSetId;
    const undone = await call(undoRoute as Parameters<typeof call>[0], {
      method: "POST",
      body: {},
      headers: { origin: "http://localhost:3000" },
      cookie: owner.cookie,
      params: { id: siteId, changeSetId },
    });
    expect(undone.status).toBe(200);
    for (let i = 0; i < 20; i++) {
      const set = await getChangeSet({ userId: owner.id, siteId, changeSetId });
      if (!set.verification) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("a draft's change set kept a verification");
  });
});
