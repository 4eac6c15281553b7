/**
 * Property tests over every JSON route: random and hostile bodies never produce a 5xx, a body that must be refused
 * is refused with the right 4xx and changes no record, and nothing pollutes Object.prototype. The verifiers (ours in
 * TypeScript, the plugin's in PHP) never accept a header they did not sign.
 */
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { loginSchema, signupSchema } from "@/lib/auth/accounts";
import { useTestDatabase } from "@/lib/db/testing";
import { pairSchema, redeemSchema } from "@/lib/sites/pairing";
import { sign, stringToSign, verify, type SignableRequest } from "@/lib/sites/signing";
import { changePasswordSchema, deleteAccountSchema, profileSchema } from "@/lib/auth/account-settings";
import { verifyEmailSchema } from "@/lib/auth/email-verification";
import { forgotPasswordSchema, resetPasswordSchema } from "@/lib/auth/password-reset";
import { POST as login } from "@/app/auth/login/route";
import { DELETE as deleteAccount, PATCH as updateProfile } from "@/app/auth/me/route";
import { POST as changePassword } from "@/app/auth/password/route";
import { POST as forgotPassword } from "@/app/auth/password/forgot/route";
import { POST as resetPassword } from "@/app/auth/password/reset/route";
import { POST as verifyEmail } from "@/app/auth/verify-email/route";
import { POST as applyChangeSet } from "@/app/sites/[id]/changes/[changeSetId]/apply/route";
import { POST as undoChangeSet } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { POST as approveChangeSet } from "@/app/sites/[id]/changes/[changeSetId]/approve/route";
import { POST as denyChangeSet } from "@/app/sites/[id]/changes/[changeSetId]/deny/route";
import { PATCH as editQueueItem } from "@/app/sites/[id]/changes/[changeSetId]/items/[itemId]/route";
import { POST as rejectQueue } from "@/app/sites/[id]/changes/[changeSetId]/reject/route";
import { itemEditSchema, itemsSchema } from "@/app/sites/[id]/changes/schema";
import { POST as signup } from "@/app/auth/signup/route";
import { POST as acceptInvitation } from "@/app/invitations/accept/route";
import { acceptSchema } from "@/app/invitations/accept/schema";
import { PATCH as changeMemberRole } from "@/app/sites/[id]/members/[memberId]/route";
import { POST as inviteMember } from "@/app/sites/[id]/members/route";
import { PATCH as updateSiteSettings } from "@/app/sites/[id]/route";
import { inviteSchema, memberRoleSchema, siteSettingsSchema } from "@/app/sites/[id]/schema";
import { POST as chat } from "@/app/chat/route";
import { chatSchema } from "@/app/chat/schema";
import { POST as createSandbox } from "@/app/sessions/route";
import { createSandboxSchema } from "@/app/sessions/schema";
import { POST as pair } from "@/app/sites/pair/route";
import { POST as redeem } from "@/app/sites/redeem/route";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import {
  hostileBodies,
  hostileValue,
  JsonObject,
  nastyString,
  obj,
  POISON_STRINGS,
  toJson,
  type RawBody,
} from "./support/hostile";

const database = useTestDatabase();
const repoRoot = path.resolve(import.meta.dirname, "../..");

type Handler = Parameters<typeof call>[0];
type JsonRoute = {
  file: string;
  handler: Handler;
  schema: z.ZodType;
  session: boolean;
  valid: () => JsonObject;
  runs: number;
  /** Path parameters, for routes under `[id]` folders (ids that are not the user's: a valid body is a 404). */
  params?: Record<string, string>;
  /** The method, when not POST. */
  method?: "PATCH";
};

const SOMEONE_ELSES = {
  id: "00000000-0000-4000-8000-000000000000",
  changeSetId: "00000000-0000-4000-8000-000000000001",
};

let cookie = "";
let portCounter = 0;
const PASSWORD = "a long and unusual passphrase 7";

/** Every route that reads a JSON body. A new one must be added here: the first test checks the list is complete. */
const jsonRoutes: Record<string, JsonRoute> = {
  "POST /auth/signup": {
    file: "app/auth/signup/route.ts",
    handler: signup,
    schema: signupSchema,
    session: false,
    valid: () => obj({ email: `fuzz${portCounter++}@example.com`, password: PASSWORD, name: "Fuzz" }),
    runs: 40, // a valid body costs a real scrypt hash
  },
  "POST /auth/login": {
    file: "app/auth/login/route.ts",
    handler: login,
    schema: loginSchema,
    session: false,
    valid: () => obj({ email: "nobody@example.com", password: PASSWORD }),
    runs: 30,
  },
  "POST /sites/pair": {
    file: "app/sites/pair/route.ts",
    handler: pair,
    schema: pairSchema,
    session: true,
    valid: () => obj({ url: `https://localhost:${43000 + portCounter++}` }),
    runs: 120,
  },
  "POST /sites/redeem": {
    file: "app/sites/redeem/route.ts",
    handler: redeem,
    schema: redeemSchema,
    session: false,
    valid: () => redeemBody(`https://localhost:${44000 + portCounter++}`, "BCDFGHJK"),
    runs: 120,
  },
  "POST /chat": {
    file: "app/chat/route.ts",
    handler: chat,
    schema: chatSchema,
    session: true,
    valid: () => obj({ siteId: "00000000-0000-4000-8000-000000000000", message: "Make the title bigger" }),
    runs: 120,
  },
  "POST /sessions": {
    file: "app/sessions/route.ts",
    handler: createSandbox,
    schema: createSandboxSchema,
    session: true,
    valid: () => obj({ siteId: "00000000-0000-4000-8000-000000000000", ttlMinutes: 30 }),
    runs: 120,
  },
  "PATCH /auth/me": {
    file: "app/auth/me/route.ts",
    handler: updateProfile,
    schema: profileSchema,
    session: true,
    valid: () => obj({ email: `fuzz-profile${portCounter++}@example.com`, name: "Fuzz" }),
    runs: 60,
  },
  // Valid bodies carry a wrong password: a 403 (then 429), and the fuzzing user keeps its account and password.
  "DELETE /auth/me": {
    file: "app/auth/me/route.ts",
    handler: deleteAccount,
    schema: deleteAccountSchema,
    session: true,
    valid: () => obj({ password: "not the password of this account" }),
    runs: 20,
  },
  "POST /auth/password": {
    file: "app/auth/password/route.ts",
    handler: changePassword,
    schema: changePasswordSchema,
    session: true,
    valid: () => obj({ currentPassword: "not the password of this account", newPassword: `${PASSWORD} renewed` }),
    runs: 20,
  },
  // An address without an account: the answer is 202 (or 429), and nothing is written after it.
  "POST /auth/password/forgot": {
    file: "app/auth/password/forgot/route.ts",
    handler: forgotPassword,
    schema: forgotPasswordSchema,
    session: false,
    valid: () => obj({ email: `fuzz-forgot${portCounter++}@example.com` }),
    runs: 60,
  },
  // A well-formed token nobody was sent: 400 invalid_token before any scrypt work.
  "POST /auth/password/reset": {
    file: "app/auth/password/reset/route.ts",
    handler: resetPassword,
    schema: resetPasswordSchema,
    session: false,
    valid: () => obj({ token: "A".repeat(43), password: `${PASSWORD} renewed` }),
    runs: 60,
  },
  "POST /auth/verify-email": {
    file: "app/auth/verify-email/route.ts",
    handler: verifyEmail,
    schema: verifyEmailSchema,
    session: false,
    valid: () => obj({ token: "A".repeat(43) }),
    runs: 60,
  },
  "POST /sites/:id/changes/:changeSetId/undo": {
    file: "app/sites/[id]/changes/[changeSetId]/undo/route.ts",
    handler: undoChangeSet,
    schema: itemsSchema,
    session: true,
    valid: () => obj({ itemIds: ["00000000-0000-4000-8000-000000000002"] }),
    runs: 60,
    params: SOMEONE_ELSES,
  },
  "POST /sites/:id/changes/:changeSetId/approve": {
    file: "app/sites/[id]/changes/[changeSetId]/approve/route.ts",
    handler: approveChangeSet,
    schema: itemsSchema,
    session: true,
    valid: () => obj({ upTo: "00000000-0000-4000-8000-000000000002" }),
    runs: 40,
    params: SOMEONE_ELSES,
  },
  "POST /sites/:id/changes/:changeSetId/deny": {
    file: "app/sites/[id]/changes/[changeSetId]/deny/route.ts",
    handler: denyChangeSet,
    schema: itemsSchema,
    session: true,
    valid: () => obj({ itemIds: ["00000000-0000-4000-8000-000000000002"] }),
    runs: 40,
    params: SOMEONE_ELSES,
  },
  "POST /sites/:id/changes/:changeSetId/reject": {
    file: "app/sites/[id]/changes/[changeSetId]/reject/route.ts",
    handler: rejectQueue,
    schema: itemsSchema,
    session: true,
    valid: () => obj({ itemIds: ["00000000-0000-4000-8000-000000000002"] }),
    runs: 40,
    params: SOMEONE_ELSES,
  },
  "PATCH /sites/:id/changes/:changeSetId/items/:itemId": {
    file: "app/sites/[id]/changes/[changeSetId]/items/[itemId]/route.ts",
    handler: editQueueItem,
    schema: itemEditSchema,
    session: true,
    valid: () => obj({ after: obj({ alt: "A blue door" }) }),
    runs: 40,
    params: { ...SOMEONE_ELSES, itemId: "00000000-0000-4000-8000-000000000003" },
    method: "PATCH",
  },
  "POST /invitations/accept": {
    file: "app/invitations/accept/route.ts",
    handler: acceptInvitation,
    schema: acceptSchema,
    session: true,
    valid: () => obj({ token: "an-invitation-token-nobody-was-sent" }),
    runs: 40,
  },
  "PATCH /sites/:id": {
    file: "app/sites/[id]/route.ts",
    handler: updateSiteSettings,
    schema: siteSettingsSchema,
    session: true,
    valid: () => obj({ requireSecondPerson: true }),
    runs: 40,
    params: SOMEONE_ELSES,
    method: "PATCH",
  },
  "POST /sites/:id/members": {
    file: "app/sites/[id]/members/route.ts",
    handler: inviteMember,
    schema: inviteSchema,
    session: true,
    valid: () => obj({ email: `member${portCounter++}@example.com`, role: "editor" }),
    runs: 40,
    params: SOMEONE_ELSES,
  },
  "PATCH /sites/:id/members/:memberId": {
    file: "app/sites/[id]/members/[memberId]/route.ts",
    handler: changeMemberRole,
    schema: memberRoleSchema,
    session: true,
    valid: () => obj({ role: "viewer" }),
    runs: 40,
    params: { ...SOMEONE_ELSES, memberId: "00000000-0000-4000-8000-000000000004" },
    method: "PATCH",
  },
  "POST /sites/:id/changes/:changeSetId/apply": {
    file: "app/sites/[id]/changes/[changeSetId]/apply/route.ts",
    handler: applyChangeSet,
    schema: itemsSchema,
    session: true,
    valid: () => obj({ itemIds: ["00000000-0000-4000-8000-000000000002"] }),
    runs: 60,
    params: SOMEONE_ELSES,
  },
};

function redeemBody(url: string, code: string): JsonObject {
  return obj({
    code,
    siteUrl: url,
    restUrl: `${url}/wp-json/`,
    token: `swt_${"t".repeat(60)}`,
    secret: `sws_${"s".repeat(60)}`,
    plugin: obj({ version: "1.0.0" }),
    site: obj({ name: "Example", pageBuilder: "gutenberg" }),
  });
}

/** Feature switches that are off in tests answer 503 by contract (docs/api.md); anything else 5xx is a bug. */
const DOCUMENTED_UNAVAILABLE = new Set(["agent_unavailable", "sandbox_unavailable"]);

type Expectation = { status: number; codes: string[] } | { status: "handled" };

/** What the wrapper must answer, decided independently: media type, size, UTF-8, JSON, then the route's schema. */
function expectedFor(schema: z.ZodType, body: RawBody): Expectation {
  const mediaType = (body.contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") return { status: 415, codes: ["unsupported_media_type"] };
  if (body.bytes.byteLength > 64 * 1024) return { status: 413, codes: ["payload_too_large"] };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body.bytes));
  } catch {
    return { status: 400, codes: ["invalid_json"] };
  }
  // The wrapper may refuse a body before its schema does (unstorable characters, nesting): either 400 is right.
  return schema.safeParse(value).success
    ? { status: "handled" }
    : { status: 400, codes: ["invalid_input", "invalid_json"] };
}

/** Every row of every table (minus the session's sliding last-seen time): equal fingerprints, unchanged records. */
async function fingerprint(): Promise<string> {
  const db = database.current().handle.db;
  const tables = (await db.execute(
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  )) as unknown as { table_name: string }[];
  const parts = tables.map(
    ({ table_name }) =>
      sql`select ${table_name} as t, count(*)::int as n, md5(coalesce(string_agg((to_jsonb(x) - 'last_seen_at')::text, ',' order by (to_jsonb(x) - 'last_seen_at')::text), '')) as h from ${sql.identifier(table_name)} x`,
  );
  const rows = (await db.execute(sql.join(parts, sql` union all `))) as unknown as {
    t: string;
    n: number;
    h: string;
  }[];
  return rows.map((r) => `${r.t}:${r.n}:${r.h}`).join(" ");
}

const prototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort().join(",");
const cleanPrototype = prototypeKeys();

function describeBody(body: RawBody): string {
  const text = Buffer.from(body.bytes).toString("utf8");
  return `${body.label} (${body.contentType ?? "no content type"}, ${body.bytes.byteLength} bytes): ${text.length > 300 ? `${text.slice(0, 300)}...` : text}`;
}

async function send(route: JsonRoute, body: RawBody) {
  const headers: Record<string, string> = {};
  if (body.contentType) headers["content-type"] = body.contentType;
  return call(route.handler, {
    rawBody: body.bytes,
    headers,
    cookie: route.session ? cookie : undefined,
    params: route.params,
    ...(route.method ? { method: route.method } : {}),
  });
}

const jsonBody = (label: string, text: string): RawBody => ({
  bytes: new TextEncoder().encode(text),
  contentType: "application/json",
  label,
});

/** Every string field of a body, and of the objects inside it, with a way to replace it. */
function stringFields(valid: JsonObject): { path: string; set: (value: string) => JsonObject }[] {
  const fields: { path: string; set: (value: string) => JsonObject }[] = [];
  for (const [key, value] of valid.members) {
    if (typeof value === "string") fields.push({ path: key, set: (v) => valid.with(key, v) });
    if (value instanceof JsonObject) {
      for (const [inner, innerValue] of value.members) {
        if (typeof innerValue === "string")
          fields.push({ path: `${key}.${inner}`, set: (v) => valid.with(key, value.with(inner, v)) });
      }
      fields.push({ path: `${key}.<poison key>`, set: (v) => valid.with(key, value.with(v, "x")) });
    }
  }
  return fields;
}

/** Sends one body and checks the answer against what the wrapper and the route's schema must do with it. */
async function checkBody(name: string, route: JsonRoute, body: RawBody) {
  const expected = expectedFor(route.schema, body);
  const before = expected.status === "handled" ? "" : await fingerprint();
  const res = await send(route, body);
  const what = `${name} ← ${describeBody(body)} → ${res.status} ${res.text.slice(0, 300)}`;
  if (expected.status === "handled") {
    const allowed = res.status < 500 || (res.status === 503 && DOCUMENTED_UNAVAILABLE.has(res.json?.error?.code));
    expect(allowed, what).toBe(true);
  } else {
    expect(res.status, what).toBe(expected.status);
    expect(expected.codes, what).toContain(res.json?.error?.code);
    expect(await fingerprint(), `records changed by ${what}`).toBe(before);
  }
  expect(prototypeKeys(), what).toBe(cleanPrototype);
  expect(({} as Record<string, unknown>).polluted, what).toBeUndefined();
}

beforeAll(async () => {
  cookie = (await newUser("fuzz")).cookie;
});

describe("every JSON route", () => {
  it("is in this file's list, so none escapes the fuzzing", () => {
    const files = readdirSync(path.join(repoRoot, "app"), { recursive: true, encoding: "utf8" })
      .filter((file) => /(^|\/)route\.ts$/.test(file))
      .map((file) => path.join("app", file));
    const withBody = files.filter((file) =>
      /route\(\s*\{[^}]*\bbody\s*:/.test(readFileSync(path.join(repoRoot, file), "utf8")),
    );
    expect(withBody.sort()).toEqual([...new Set(Object.values(jsonRoutes).map((route) => route.file))].sort());
  });

  for (const [name, route] of Object.entries(jsonRoutes)) {
    it(`${name} never answers a hostile body with a 5xx, and a refused body changes no record`, async () => {
      const keys = route.valid().members.map(([key]) => key);
      await fc.assert(
        fc.asyncProperty(hostileBodies(route.valid(), keys), (body) => checkBody(name, route, body)),
        { numRuns: route.runs },
      );
    }, 120_000);

    it(`${name} survives NUL, lone surrogates and huge strings in every string field and key`, async () => {
      const valid = route.valid();
      for (const { path: field, set } of stringFields(valid)) {
        for (const poison of POISON_STRINGS)
          await checkBody(name, route, jsonBody(`${field} = poison`, toJson(set(poison))));
      }
      for (const poison of POISON_STRINGS.slice(0, -1)) {
        await checkBody(name, route, jsonBody("poison key", toJson(valid.with(poison, "x"))));
      }
    }, 120_000);
  }

  it("POST /sites/redeem with the right code never answers hostile plugin fields with a 5xx", async () => {
    // The path that stores what the plugin sent (site info, plugin version): only reachable with a live pairing.
    const keys = ["plugin", "site", "token", "secret", "restUrl", "siteUrl", "code"];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("site", "plugin"),
        fc.constantFrom("name", "pageBuilder", "version", "__proto__", "extra"),
        hostileValue(keys),
        async (outer, key, value) => {
          const url = `https://localhost:${45000 + portCounter++}`;
          const paired = await call(pair, { body: { url }, cookie });
          expect(paired.status, paired.text).toBe(201);
          const base = redeemBody(url, paired.json.code);
          const inner = base.get(outer) as JsonObject;
          const text = toJson(base.with(outer, inner.with(key, value)));
          const res = await call(redeem, { rawBody: text, headers: { "content-type": "application/json" } });
          expect(
            res.status,
            `redeem with ${outer}.${key} = ${toJson(value).slice(0, 200)} → ${res.status} ${res.text}`,
          ).toBeLessThan(500);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe("POST /sites/redeem with the right code", () => {
  it("never answers NUL, lone surrogates or huge strings in what the plugin sent with a 5xx", async () => {
    const fieldNames = stringFields(redeemBody("https://localhost:1", "X")).map((field) => field.path);
    for (const fieldName of fieldNames.filter((f) => f !== "code" && f !== "siteUrl")) {
      for (const poison of POISON_STRINGS) {
        // A live pairing per case: code and siteUrl stay right so the body reaches the code that stores it.
        const url = `https://localhost:${46000 + portCounter++}`;
        const paired = await call(pair, { body: { url }, cookie });
        expect(paired.status, paired.text).toBe(201);
        const field = stringFields(redeemBody(url, paired.json.code)).find((f) => f.path === fieldName)!;
        const res = await call(redeem, {
          rawBody: toJson(field.set(poison)),
          headers: { "content-type": "application/json" },
        });
        expect(
          res.status,
          `redeem with ${fieldName} = ${JSON.stringify(poison.slice(0, 40))} → ${res.status} ${res.text}`,
        ).toBeLessThan(500);
      }
    }
    for (const depth of [100, 1000, 20_000]) {
      const url = `https://localhost:${46000 + portCounter++}`;
      const paired = await call(pair, { body: { url }, cookie });
      const text = toJson(redeemBody(url, paired.json.code)).replace(
        '"site":{',
        `"site":{"deep":${"[".repeat(depth)}${"]".repeat(depth)},`,
      );
      const res = await call(redeem, { rawBody: text, headers: { "content-type": "application/json" } });
      expect(res.status, `redeem with site info nested ${depth} deep → ${res.status} ${res.text}`).toBeLessThan(500);
    }
  }, 120_000);
});

describe("the TypeScript verifier", () => {
  const request = fc.record({
    timestamp: fc.integer({ min: 1, max: 4_102_444_800_000 }).map(String),
    method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"),
    route: fc.stringMatching(/^\/[a-z0-9/_-]{0,30}$/),
    query: fc.array(
      fc.tuple(
        fc.string({ maxLength: 8 }).filter((s) => s !== "rest_route" && !/[[\]]/.test(s)),
        fc.string({ maxLength: 8 }),
      ),
      { maxLength: 4 },
    ),
    body: fc.string({ maxLength: 64 }),
  }) as fc.Arbitrary<SignableRequest>;
  const secret = fc.string({ minLength: 1, maxLength: 64 });
  const hex = (length: number) =>
    fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF"), minLength: length, maxLength: length });

  /** Headers that are not the right signature: random, malformed, near misses of the right one. */
  const forgedHeader = (right: string) =>
    fc.oneof(
      fc.string({ maxLength: 100 }),
      nastyString,
      hex(64).map((h) => `v1=${h}`),
      fc
        .integer({ min: 0, max: 130 })
        .chain((n) => hex(n))
        .map((h) => `v1=${h}`),
      fc
        .nat(63)
        .chain((i) => fc.constantFrom(..."0123456789abcdef").map((c) => ({ i, c })))
        .map(({ i, c }) => `v1=${right.slice(3, 3 + i)}${c}${right.slice(4 + i)}`),
      fc.constantFrom(
        right.slice(3),
        `v2=${right.slice(3)}`,
        `V1=${right.slice(3)}`,
        `v1 =${right.slice(3)}`,
        `v1==${right.slice(3)}`,
        `${right}0`,
        right.slice(0, -1),
        `${right},${right}`,
        `${right}\u0000`,
        `v1=${right.slice(3)}\nv1=${right.slice(3)}`,
        `v1=${Buffer.from(right.slice(3), "hex").toString("base64")}`,
        "v1=",
        "",
      ),
    );

  it("never accepts a header it did not produce", () => {
    const cases = fc
      .tuple(secret, request)
      .chain(([key, req]) => fc.tuple(fc.constant(key), fc.constant(req), forgedHeader(sign(key, req))));
    fc.assert(
      fc.property(cases, ([key, req, header]) => {
        // The same signature spelt in upper case or with surrounding spaces is still the signature, not a forgery.
        const trimmed = header.trim();
        fc.pre(!(/^v1=[0-9a-fA-F]{64}$/.test(trimmed) && `v1=${trimmed.slice(3).toLowerCase()}` === sign(key, req)));
        expect(verify(key, req, header)).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it("never accepts a signature made for another request, or with another secret", () => {
    fc.assert(
      fc.property(secret, secret, request, request, (keyA, keyB, reqA, reqB) => {
        fc.pre(keyA !== keyB && stringToSign(reqA) !== stringToSign(reqB));
        expect(verify(keyA, reqA, sign(keyA, reqA))).toBe(true);
        expect(verify(keyB, reqA, sign(keyA, reqA))).toBe(false);
        expect(verify(keyA, reqB, sign(keyA, reqA))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("never accepts a right signature more than 300 s away from now, either way", () => {
    fc.assert(
      fc.property(
        secret,
        request,
        fc.integer({ min: 300_001, max: 10 ** 12 }),
        fc.boolean(),
        (key, req, skew, ahead) => {
          const now = Number(req.timestamp) + (ahead ? -skew : skew);
          expect(verify(key, req, sign(key, req), { now })).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answers false, never throws, for headers that are not strings", () => {
    for (const header of [undefined, null, 42, ["v1=00"], { toString: () => "v1=00" }, Symbol.iterator]) {
      expect(verify("secret", { timestamp: "1", method: "GET", route: "/" }, header as unknown as string)).toBe(false);
    }
  });
});

describe("the plugin's verifier (PHP)", () => {
  it("never accepts a header it did not produce", () => {
    // One PHP process checks a few thousand generated headers with Sitewright_Signature::verify, the function the
    // plugin's authentication calls; right headers are mixed in so the harness itself is checked too.
    const wellFormed = (s: string) => s.isWellFormed();
    const cases = fc.sample(
      fc.tuple(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ maxLength: 80 })).chain(([key, sts]) => {
        const right = `v1=${hmacHex(key, sts)}`;
        const hex = right.slice(3);
        return fc.tuple(
          fc.constant(key),
          fc.constant(sts),
          fc.oneof(
            fc.constantFrom<unknown>(right, right.toUpperCase().replace(/^V1/, "v1"), ` ${right}\n`),
            fc.string({ maxLength: 100 }),
            nastyString.filter(wellFormed),
            fc.constantFrom<unknown>(null, 0, 1, true, [right], { v: right }),
            fc.nat(63).map((i) => `v1=${hex.slice(0, i)}${hex[i] === "0" ? "1" : "0"}${hex.slice(i + 1)}`),
            fc.constantFrom(
              hex,
              `v2=${hex}`,
              `V1=${hex}`,
              `${right}0`,
              right.slice(0, -1),
              `${right},${right}`,
              `v1=${hex}\nv1=${hex}`,
              `v1==${hex}`,
            ),
          ),
        );
      }),
      { numRuns: 3000, seed: 7 },
    );
    const results = runPhpVerifier(cases.map(([key, sts, header]) => ({ key, sts, header })));
    expect(results).toHaveLength(cases.length);
    let rightSeen = 0;
    cases.forEach(([key, sts, header], i) => {
      const trimmed = typeof header === "string" ? phpTrim(header) : "";
      const isRight = /^v1=[0-9a-fA-F]{64}$/.test(trimmed) && trimmed.slice(3).toLowerCase() === hmacHex(key, sts);
      if (isRight) rightSeen++;
      expect(results[i], `PHP verify(${JSON.stringify(key)}, ${JSON.stringify(sts)}, ${JSON.stringify(header)})`).toBe(
        isRight,
      );
    });
    expect(rightSeen).toBeGreaterThan(50);
  });
});

const hmacHex = (key: string, message: string) => createHmac("sha256", key).update(message).digest("hex");
/** PHP's trim(): space, tab, newline, carriage return, NUL and vertical tab. */
const PHP_TRIM_CHARACTERS = new Set([" ", "\t", "\n", "\r", "\0", "\v"]);
const phpTrim = (value: string) => {
  let start = 0;
  let end = value.length;
  while (start < end && PHP_TRIM_CHARACTERS.has(value[start]!)) start++;
  while (end > start && PHP_TRIM_CHARACTERS.has(value[end - 1]!)) end--;
  return value.slice(start, end);
};

function runPhpVerifier(cases: { key: string; sts: string; header: unknown }[]): boolean[] {
  const script = [
    "define('ABSPATH', '/nonexistent/');",
    `require ${JSON.stringify(path.join(repoRoot, "plugin/includes/class-sitewright-signature.php"))};`,
    "$cases = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);",
    "$out = array();",
    "foreach ($cases as $case) { $out[] = Sitewright_Signature::verify($case['key'], $case['sts'], $case['header']); }",
    "echo json_encode($out);",
  ].join("\n");
  const output = execFileSync("php", ["-d", "display_errors=stderr", "-r", script], {
    input: JSON.stringify(cases),
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(output.toString()) as boolean[];
}
