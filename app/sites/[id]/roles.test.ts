/**
 * Each role against each site route (SECURITY.md, "Members and the audit chain"): through the real route handlers
 * and PostgreSQL, a role with the right gets past the check (whatever the act then answers), a role without it gets
 * `403 forbidden`, and someone who is no member of the site gets `404 not_found`, exactly like a missing site.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/chat/route";
import { ensureChangeSet, insertChangeItems, insertJob, insertUpload, upsertMember } from "@/lib/db/queries";
import type { MemberRole } from "@/lib/db/schema";
import { setAgentModelForTests } from "@/lib/agent/model";
import { scriptedModel } from "@/lib/agent/testing/scripted-model";
import { useTestDatabase } from "@/lib/db/testing";
import { can, type SiteRight, type SiteRole } from "@/lib/teams/roles";
import { newUser } from "@/test/accounts";
import { insertSiteRow } from "@/test/agent-site";
import { call } from "@/test/http";
import { GET as exportAudit } from "./audit/export/route";
import { POST as apply } from "./changes/[changeSetId]/apply/route";
import { POST as approve } from "./changes/[changeSetId]/approve/route";
import { POST as deny } from "./changes/[changeSetId]/deny/route";
import { POST as discard } from "./changes/[changeSetId]/discard/route";
import { GET as showItem, PATCH as editItem } from "./changes/[changeSetId]/items/[itemId]/route";
import { POST as reject } from "./changes/[changeSetId]/reject/route";
import { GET as showSet } from "./changes/[changeSetId]/route";
import { POST as undo } from "./changes/[changeSetId]/undo/route";
import { POST as confirm } from "./confirm/route";
import { POST as cancelJob } from "./jobs/[jobId]/cancel/route";
import { GET as showJob } from "./jobs/[jobId]/route";
import { GET as thumbnail } from "./media/[attachmentId]/thumbnail/route";
import { GET as listChanges } from "./changes/route";
import { DELETE as removeMember, PATCH as changeRole } from "./members/[memberId]/route";
import { GET as listMembers, POST as invite } from "./members/route";
import { DELETE as disconnect, GET as showSite, PATCH as settings } from "./route";
import { GET as showUpload } from "./uploads/[uploadId]/route";
import { POST as upload } from "./uploads/route";

useTestDatabase();

type User = { id: string; cookie: string; email: string };
type Fixture = {
  siteId: string;
  changeSetId: string;
  itemId: string;
  memberId: string;
  /** A job the editor started, one the owner started, and a picture the editor's change put on the site. */
  editorJobId: string;
  ownerJobId: string;
  uploadId: string;
};
type Handler = Parameters<typeof call>[0];
type Case = {
  name: string;
  right: SiteRight;
  handler: Handler;
  method?: string;
  body?: (f: Fixture) => unknown;
  params?: (f: Fixture) => Record<string, string>;
  /** Who gets past the check, when it is not simply the roles with `right`. */
  allows?: SiteRole[];
};

const setParams = (f: Fixture) => ({ id: f.siteId, changeSetId: f.changeSetId });
const ROUTES: Case[] = [
  { name: "GET /sites/:id", right: "read", handler: showSite },
  {
    name: "PATCH /sites/:id",
    right: "manage",
    handler: settings,
    method: "PATCH",
    body: () => ({ requireSecondPerson: true }),
  },
  { name: "DELETE /sites/:id", right: "manage", handler: disconnect, method: "DELETE" },
  { name: "GET /sites/:id/members", right: "read", handler: listMembers },
  {
    name: "POST /sites/:id/members",
    right: "manage",
    handler: invite,
    body: () => ({ email: `new${randomUUID()}@example.com`, role: "viewer" }),
  },
  {
    name: "PATCH /sites/:id/members/:memberId",
    right: "manage",
    handler: changeRole,
    method: "PATCH",
    body: () => ({ role: "approver" }),
    params: (f) => ({ id: f.siteId, memberId: f.memberId }),
  },
  {
    name: "DELETE /sites/:id/members/:memberId",
    right: "manage",
    handler: removeMember,
    method: "DELETE",
    params: (f) => ({ id: f.siteId, memberId: f.memberId }),
  },
  { name: "GET /sites/:id/changes", right: "read", handler: listChanges },
  { name: "GET /sites/:id/changes/:changeSetId", right: "read", handler: showSet, params: setParams },
  {
    name: "GET …/items/:itemId",
    right: "read",
    handler: showItem,
    params: (f) => ({ ...setParams(f), itemId: f.itemId }),
  },
  {
    name: "PATCH …/items/:itemId",
    right: "approve",
    handler: editItem,
    method: "PATCH",
    body: () => ({ after: { title: "x" } }),
    params: (f) => ({ ...setParams(f), itemId: f.itemId }),
  },
  { name: "POST …/approve", right: "approve", handler: approve, params: setParams, method: "POST" },
  { name: "POST …/deny", right: "approve", handler: deny, params: setParams, method: "POST" },
  { name: "POST …/apply", right: "approve", handler: apply, params: setParams, body: () => ({}) },
  { name: "POST …/undo", right: "approve", handler: undo, params: setParams, body: () => ({}) },
  { name: "POST …/reject", right: "approve", handler: reject, params: setParams, body: () => ({}) },
  { name: "POST …/discard", right: "propose", handler: discard, params: setParams, method: "POST" },
  { name: "GET /sites/:id/audit/export", right: "audit", handler: exportAudit },
  {
    name: "GET /sites/:id/jobs/:jobId",
    right: "read",
    handler: showJob,
    params: (f) => ({ id: f.siteId, jobId: f.editorJobId }),
  },
  {
    // Cancelling changes nothing live: whoever started the job may, or anyone with the approve right.
    name: "POST …/jobs/:jobId/cancel (the editor's job)",
    right: "approve",
    allows: ["owner", "approver", "editor"],
    handler: cancelJob,
    params: (f) => ({ id: f.siteId, jobId: f.editorJobId }),
    method: "POST",
  },
  {
    name: "POST …/jobs/:jobId/cancel (the owner's job)",
    right: "approve",
    handler: cancelJob,
    params: (f) => ({ id: f.siteId, jobId: f.ownerJobId }),
    method: "POST",
  },
  // Past the check, a JSON body is refused as no file: what matters here is who gets that far.
  { name: "POST /sites/:id/uploads", right: "propose", handler: upload, body: () => ({}) },
  {
    name: "GET /sites/:id/uploads/:uploadId (used by a change)",
    right: "read",
    handler: showUpload,
    params: (f) => ({ id: f.siteId, uploadId: f.uploadId }),
  },
  {
    name: "GET /sites/:id/media/:attachmentId/thumbnail",
    right: "read",
    handler: thumbnail,
    params: (f) => ({ id: f.siteId, attachmentId: "12" }),
  },
  { name: "POST /sites/:id/confirm", right: "manage", handler: confirm, method: "POST" },
  {
    name: "POST /chat",
    right: "propose",
    handler: chat,
    body: (f) => ({ siteId: f.siteId, message: "Hello" }),
    params: () => ({}),
  },
];

const ROLES: Array<SiteRole | "stranger"> = ["owner", "approver", "editor", "viewer", "stranger"];
let people: Record<SiteRole | "stranger", User>;

beforeAll(async () => {
  // The chat says "no model" before anything about the site: a model answers, so the role is what is tested.
  setAgentModelForTests(scriptedModel([{ text: "Hello." }]));
  const entries = await Promise.all(ROLES.map(async (role) => [role, await newUser(role)] as const));
  people = Object.fromEntries(entries) as typeof people;
});

afterAll(() => setAgentModelForTests(undefined));

/** A fresh site per case: the owner's, the three members, a change set an editor asked for with one pending item. */
async function fixture(): Promise<Fixture> {
  const siteId = await insertSiteRow({
    userId: people.owner.id,
    url: `https://site-${randomUUID().slice(0, 8)}.example`,
    token: "t",
    secret: "s",
    info: { name: "Roles" },
  });
  let memberId = "";
  for (const role of ["approver", "editor", "viewer"] as MemberRole[]) {
    const member = await upsertMember({
      id: randomUUID(),
      siteId,
      userId: people[role].id,
      role,
      invitedBy: people.owner.id,
      now: new Date(),
    });
    if (role === "viewer") memberId = member.id;
  }
  const editor = people.editor;
  const set = await ensureChangeSet({
    id: randomUUID(),
    userId: editor.id,
    siteId,
    conversationId: randomUUID(),
    turnId: randomUUID(),
    target: "live",
    requestedBy: { userId: editor.id, name: editor.email, door: "chat" },
    now: new Date(),
  });
  const [item] = await insertChangeItems([
    {
      id: randomUUID(),
      changeSetId: set.id,
      kind: "page",
      ref: "post:12",
      action: "update",
      title: "Opening hours",
      summary: "Changed the title",
      before: { title: "Opening hours" },
      after: { title: "Summer opening hours" },
      visible: true,
      change: { ref: "post:12", expect: "v1", action: "update", fields: { title: "Summer opening hours" } },
      beforeState: null,
      versionRead: "v1",
      status: "pending",
      now: new Date(),
    },
  ]);
  const [editorJobId, ownerJobId] = await Promise.all([
    jobOf(editor.id, siteId, set.id),
    jobOf(people.owner.id, siteId, set.id),
  ]);
  const uploadId = await usedUpload(editor.id, siteId);
  return { siteId, changeSetId: set.id, itemId: item!.id, memberId, editorJobId, ownerJobId, uploadId };
}

async function jobOf(userId: string, siteId: string, changeSetId: string) {
  const job = await insertJob({
    id: randomUUID(),
    userId,
    siteId,
    conversationId: randomUUID(),
    changeSetId,
    status: "ready",
    selection: { description: "pages without an excerpt", count: 1, type: "page", ids: [12] },
    spec: {},
    limits: { maxItems: 10, maxTokens: 1000, maxMinutes: 5 },
    createdAt: new Date(),
  });
  return job.id;
}

/** 1×1 PNG. */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** The editor's upload, already used by a change (so its card shows it to whoever reviews the change). */
async function usedUpload(userId: string, siteId: string, usedAt: Date | null = new Date()) {
  const upload = await insertUpload({
    id: randomUUID(),
    userId,
    siteId,
    name: "shop.png",
    mime: "image/png",
    size: PIXEL.length,
    width: 1,
    height: 1,
    bytes: PIXEL,
    sourceUrl: null,
    createdAt: new Date(),
    usedAt,
    expiresAt: new Date(Date.now() + 86_400_000),
  });
  return upload.id;
}

describe.each(ROUTES)("$name", (route) => {
  it.each(ROLES)("answers %s as its role allows", async (role) => {
    const f = await fixture();
    const res = await call(route.handler, {
      method: route.method ?? (route.body ? "POST" : "GET"),
      body: route.body?.(f),
      cookie: people[role].cookie,
      params: route.params ? route.params(f) : { id: f.siteId },
      headers: { origin: "http://localhost:3000" },
    });
    if (role === "stranger") {
      expect(res.status, res.text).toBe(404);
      expect(res.json.error.code).toBe("not_found");
    } else if (route.allows ? route.allows.includes(role) : can(role, route.right)) {
      expect([403, 404], `${role}: ${res.status} ${res.text}`).not.toContain(res.status);
    } else {
      expect(res.status, res.text).toBe(403);
      expect(res.json.error.code).toBe("forbidden");
    }
  });
});

describe("an upload nobody's change used yet", () => {
  it("is its uploader's alone: other members get 404, as for an upload that does not exist", async () => {
    const f = await fixture();
    const unused = await usedUpload(people.editor.id, f.siteId, null);
    for (const role of ROLES) {
      const res = await call(showUpload, { cookie: people[role].cookie, params: { id: f.siteId, uploadId: unused } });
      expect(res.status, `${role}: ${res.text}`).toBe(role === "editor" ? 200 : 404);
    }
  });
});
