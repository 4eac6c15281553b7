/**
 * The WordPress abilities door end to end, on WordPress 7.1 with the real plugin over https and the service's real
 * route (served here over https with the test CA, as the plugin reaches the service): an administrator runs the
 * `sitewright/update-page` ability on a published page; the plugin signs the call with the pairing's credentials,
 * the service plans it through the one use case and answers a pending change set with its review URL; the page is
 * unchanged until Approve in Sitewright writes it; Undo reverts it. A user without the capability is refused by
 * WordPress before anything reaches the service; a draft (nothing visible) is written at once.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as approveRoute } from "@/app/sites/[id]/changes/[changeSetId]/approve/route";
import { POST as undoRoute } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { POST as callsRoute } from "@/app/sites/plugin/calls/route";
import { useTestDatabase } from "@/lib/db/testing";
import { env } from "@/lib/env";
import { setVerificationDepsForTests } from "@/lib/workflows/verify-change-set";
import { ensureTestCa } from "@/scripts/lib/tls";
import { type LocalSite, startLocalSite } from "@/scripts/site-local/index";
import { newUser } from "@/test/accounts";
import { insertSiteRow } from "@/test/agent-site";
import { call } from "@/test/http";
import { runAsAdmin } from "@/test/wordpress";

useTestDatabase();

type Handler = Parameters<typeof call>[0];
let site: LocalSite;
let service: Server;
let owner: Awaited<ReturnType<typeof newUser>>;
let siteId: string;
const calls: number[] = [];

/** The service's route over https on loopback, as the plugin reaches it (the test CA's certificate). */
async function startService(): Promise<Server> {
  const tls = ensureTestCa();
  const server = createServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const response = await callsRoute(
      new Request(`https://localhost${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }),
    );
    calls.push(response.status);
    res.writeHead(response.status, { "content-type": "application/json" }).end(await response.text());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return server;
}

/** An application password for a new user of that role, as Basic credentials. */
async function basicAuthFor(role: string): Promise<string> {
  const { login, password } = await runAsAdmin<{ login: string; password: string }>(
    site.wpPath,
    `$login = $args['role'] . '-' . wp_generate_password( 6, false, false );
$id = wp_insert_user( array( 'user_login' => $login, 'user_pass' => wp_generate_password(), 'role' => $args['role'] ) );
$made = WP_Application_Passwords::create_new_application_password( $id, array( 'name' => 'ability test' ) );
echo json_encode( array( 'login' => $login, 'password' => $made[0] ) );`,
    { role },
  );
  return `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;
}

const page = (id: number) =>
  runAsAdmin<{ title: string; modified: string }>(
    site.wpPath,
    "$p = get_post( (int) $args ); echo json_encode( array( 'title' => $p->post_title, 'modified' => $p->post_modified_gmt ) );",
    id,
  );

const newPage = (title: string, status: string) =>
  runAsAdmin<number>(
    site.wpPath,
    "echo json_encode( wp_insert_post( array( 'post_type' => 'page', 'post_status' => $args['status'], 'post_title' => $args['title'] ) ) );",
    { title, status },
  );

async function runAbility(auth: string, name: string, input: unknown) {
  const res = await site.fetch(`/wp-json/wp-abilities/v1/abilities/${name}/run`, {
    method: "POST",
    headers: { authorization: auth, "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown> };
}

beforeAll(async () => {
  site = await startLocalSite({ wordpress: "7.1", title: "Ability Bakery" });
  service = await startService();
  const serviceUrl = `https://localhost:${(service.address() as AddressInfo).port}`;
  const creds = await site.cli<{ token: string; secret: string }>(
    "create-credentials",
    "--scopes=site:read,content:read,content:write",
    `--service-url=${serviceUrl}`,
  );
  owner = await newUser("ability");
  const info = await runAsAdmin<Record<string, unknown>>(
    site.wpPath,
    "echo json_encode( array_merge( Sitewright_Site_Info::collect(), array( 'token' => array( 'scopes' => array( 'site:read', 'content:read', 'content:write' ), 'capabilities' => Sitewright_Scopes::capabilities( array( 'site:read', 'content:read', 'content:write' ) ) ) ) ) );",
  );
  siteId = await insertSiteRow({ userId: owner.id, url: site.url, token: creds.token, secret: creds.secret, info });
  setVerificationDepsForTests({ delays: [0] });
}, 180_000);

afterAll(async () => {
  setVerificationDepsForTests(undefined);
  service?.close();
  await site?.stop();
});

describe("the update-page ability on WordPress 7.1", () => {
  it("answers a pending change set for a published page, writes it only on Approve, and Undo reverts it", async () => {
    const id = await newPage("Opening hours", "publish");
    const before = await page(id);
    const admin = await basicAuthFor("administrator");

    const ran = await runAbility(admin, "sitewright/update-page", { id, title: "Open late on Fridays" });
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ status: "pending", changeSetId: expect.any(String) });
    const changeSetId = ran.body.changeSetId as string;
    expect(ran.body.reviewUrl).toBe(`${env().APP_URL}/sites/${siteId}/review/${changeSetId}`);
    expect(await page(id)).toEqual(before);

    const approved = await call(approveRoute as Handler, {
      method: "POST",
      headers: { origin: env().APP_URL },
      cookie: owner.cookie,
      params: { id: siteId, changeSetId },
    });
    expect(approved.status).toBe(200);
    expect((await page(id)).title).toBe("Open late on Fridays");

    const undone = await call(undoRoute as Handler, {
      method: "POST",
      body: {},
      headers: { origin: env().APP_URL },
      cookie: owner.cookie,
      params: { id: siteId, changeSetId },
    });
    expect(undone.status).toBe(200);
    expect((await page(id)).title).toBe("Opening hours");
  }, 180_000);

  it("writes a draft's change at once (nothing visible), as every door does", async () => {
    const id = await newPage("Draft menu", "draft");
    const ran = await runAbility(await basicAuthFor("administrator"), "sitewright/update-page", {
      id,
      title: "Draft menu, spring",
    });
    expect(ran.status, JSON.stringify(ran.body)).toBe(200);
    expect(ran.body).toMatchObject({ status: "applied", changeSetId: expect.any(String) });
    expect((await page(id)).title).toBe("Draft menu, spring");
  }, 120_000);

  it("refuses a subscriber in WordPress, and nothing reaches the service", async () => {
    const id = await newPage("Prices", "publish");
    const sent = calls.length;
    const ran = await runAbility(await basicAuthFor("subscriber"), "sitewright/update-page", { id, title: "Free" });
    expect(ran.status).toBe(403);
    expect(calls.length).toBe(sent);
    expect((await page(id)).title).toBe("Prices");
  }, 90_000);

  it("lists our abilities with their schemas and runs a read in WordPress", async () => {
    const admin = await basicAuthFor("administrator");
    const listed = await site.fetch("/wp-json/wp-abilities/v1/abilities?per_page=100", {
      headers: { authorization: admin },
    });
    const ours = (JSON.parse(listed.body) as Array<{ name: string; input_schema: { required?: string[] } }>).filter(
      (ability) => ability.name.startsWith("sitewright/"),
    );
    expect(ours.map((ability) => ability.name)).toEqual(
      expect.arrayContaining(["sitewright/read-page", "sitewright/update-page", "sitewright/publish-page"]),
    );
    expect(ours.map((ability) => ability.name)).not.toContain("sitewright/update-global-styles");
    expect(ours.find((ability) => ability.name === "sitewright/update-page")?.input_schema.required).toEqual(["id"]);

    const id = await newPage("Readable", "publish");
    const sent = calls.length;
    const read = await site.fetch(
      `/wp-json/wp-abilities/v1/abilities/sitewright/read-page/run?${new URLSearchParams({ "input[id]": String(id) })}`,
      { headers: { authorization: admin } },
    );
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ data: { id, title: "Readable", status: "publish" } });
    expect(calls.length).toBe(sent);
  }, 90_000);
});
