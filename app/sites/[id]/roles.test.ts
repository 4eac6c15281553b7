/**
 * Each role against each site route (SECURITY.md, "Members and the audit chain"): through the real route handlers
 * and PostgreSQL, a role with the right gets past the check (whatever the act then answers), a role without it gets
 * `403 forbidden`, and someone who is no member of the site gets `404 not_found`, exactly like a missing site.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/chat/route";
import { ensureChangeSet, insertChangeItems, upsertMember } from "@/lib/db/queries";
import type { MemberRole } from "@/lib/db/schema";
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
import { GET as listChanges } from "./changes/route";
import { DELETE as removeMember, PATCH as changeRole } from "./members/[memberId]/route";
import { GET as listMembers, POST as invite } from "./members/route";
import { DELETE as disconnect, GET as showSite, PATCH as settings } from "./route";

useTestDatabase();

type User = { id: string; cookie: string; email: string };
type Fixture = { siteId: string; changeSetId: string; itemId: string; memberId: string };
type Handler = Parameters<typeof call>[0];
type Case = {
  name: string;
  right: SiteRight;
  handler: Handler;
  method?: string;
  body?: (f: Fixture) => unknown;
  params?: (f: Fixture) => Record<string, string>;
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
  const entries = await Promise.all(ROLES.map(async (role) => [role, await newUser(role)] as const));
  people = Object.fromEntries(entries) as typeof people;
});

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
  return { siteId, changeSetId: set.id, itemId: item!.id, memberId };
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
    } else if (can(role, route.right)) {
      expect([403, 404], `${role}: ${res.status} ${res.text}`).not.toContain(res.status);
    } else {
      expect(res.status, res.text).toBe(403);
      expect(res.json.error.code).toBe("forbidden");
    }
  });
});
