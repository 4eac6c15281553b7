/**
 * Changing a member's role or removing them ends, at once, what they held for that site (docs/teams.md): their next
 * request is checked against the new role, and the site leaves their MCP grants (a grant left with no site is
 * revoked; one that also holds their own site keeps it). Through the real routes and PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { DELETE as removeMember, PATCH as changeRole } from "@/app/sites/[id]/members/[memberId]/route";
import { POST as upload } from "@/app/sites/[id]/uploads/route";
import { findActiveGrant, insertOAuthClient, insertOAuthGrant, upsertMember } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { newUser } from "@/test/accounts";
import { insertSiteRow } from "@/test/agent-site";
import { call } from "@/test/http";

useTestDatabase();
const origin = { origin: "http://localhost:3000" };

type Person = Awaited<ReturnType<typeof newUser>>;
let owner: Person;
let editor: Person;
let siteId: string;
let editorsOwnSite: string;
let memberId: string;

const site = (userId: string) =>
  insertSiteRow({ userId, url: `https://s-${randomUUID().slice(0, 8)}.example`, token: "t", secret: "s", info: {} });

async function grant(siteIds: string[]) {
  const client = await insertOAuthClient({
    id: randomUUID(),
    name: "Claude Desktop",
    redirectUris: ["http://127.0.0.1:5000/cb"],
    authMethod: "none",
    secretHash: null,
    now: new Date(),
  });
  const row = await insertOAuthGrant({
    id: randomUUID(),
    userId: editor.id,
    clientId: client.id,
    siteIds,
    access: "propose",
    now: new Date(),
  });
  return row.id;
}

beforeEach(async () => {
  owner = await newUser("owner");
  editor = await newUser("editor");
  siteId = await site(owner.id);
  editorsOwnSite = await site(editor.id);
  const member = await upsertMember({
    id: randomUUID(),
    siteId,
    userId: editor.id,
    role: "editor",
    invitedBy: owner.id,
    now: new Date(),
  });
  memberId = member.id;
});

const attach = () =>
  call(upload, { body: {}, cookie: editor.cookie, headers: origin, params: { id: siteId } }).then((r) => r.status);

describe("what a member held for a site", () => {
  it("ends with a role change: the next request meets the new role, and the site leaves their MCP grants", async () => {
    const onlyThisSite = await grant([siteId]);
    const alsoTheirOwn = await grant([siteId, editorsOwnSite]);
    expect(await attach()).not.toBe(403);

    const changed = await call(changeRole, {
      method: "PATCH",
      body: { role: "viewer" },
      cookie: owner.cookie,
      headers: origin,
      params: { id: siteId, memberId },
    });
    expect(changed.status, changed.text).toBe(200);

    expect(await attach()).toBe(403);
    expect(await findActiveGrant({ id: onlyThisSite })).toBeUndefined();
    expect((await findActiveGrant({ id: alsoTheirOwn }))?.siteIds).toEqual([editorsOwnSite]);
  });

  it("ends with removal: the site answers 404 as to a stranger, and their grant for it is revoked", async () => {
    const onlyThisSite = await grant([siteId]);
    const removed = await call(removeMember, {
      method: "DELETE",
      cookie: owner.cookie,
      headers: origin,
      params: { id: siteId, memberId },
    });
    expect(removed.status, removed.text).toBe(204);
    expect(await attach()).toBe(404);
    expect(await findActiveGrant({ id: onlyThisSite })).toBeUndefined();
  });
});
