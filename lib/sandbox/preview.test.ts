/**
 * The preview: its rewriting rules and static-file paths on their own, then who gets through, what passes and
 * what is cut, through the real route handler against one real sandbox (Podman) and real PostgreSQL.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as logout } from "@/app/auth/logout/route";
import { POST as login } from "@/app/auth/login/route";
import { POST as changePassword } from "@/app/auth/password/route";
import { DELETE as signOutEverywhere } from "@/app/auth/sessions/route";
import { GET as previewGet, POST as previewPost } from "@/app/preview/[sandboxId]/[[...path]]/route";
import { findSandboxById } from "@/lib/db/queries";
import { env } from "@/lib/env";
import { useTestDatabase } from "@/lib/db/testing";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { mapBlockIds } from "@/lib/changes/replay";
import { setSandboxManagerForTests } from "./index";
import { MAX_FORWARDED_BODY, rewriteText, scopeCookie } from "./preview";
import { staticFileCandidate, staticFileRequest } from "./preview-assets";
import { previewGrantCookie, signedGrantSessions } from "./preview-grant";
import { PREVIEW_VIEWER_HEADER, previewViewerHash, previewViewerHeader, previewViewerToken } from "./preview-viewer";
import type { SandboxView } from "./sandboxes";
import { createTestSandboxes, type TestSandboxes } from "./testing";

const ID = "3f2b8a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
const BASE = `https://app.example/preview/${ID}`;

describe("the preview's rewriting", () => {
  it("replaces every spelling of the container's address with the preview base", () => {
    const text = [
      'href="http://127.0.0.1:41234/about/"',
      '"url":"http:\\/\\/127.0.0.1:41234\\/wp-json\\/"',
      "redirect_to=http%3A%2F%2F127.0.0.1%3A41234%2Fwp-admin%2F",
      'src="//127.0.0.1:41234/x.js"',
    ].join("\n");
    const out = rewriteText(text, "http://127.0.0.1:41234", BASE);
    expect(out).not.toMatch(/127\.0\.0\.1/);
    expect(out).toContain(`href="${BASE}/about/"`);
    expect(out).toContain(`"url":"${BASE.replaceAll("/", "\\/")}\\/wp-json\\/"`);
    expect(out).toContain(`redirect_to=${encodeURIComponent(BASE)}%2Fwp-admin%2F`);
  });

  it("replaces a pod's endpoint, IPv4 or IPv6, as it replaces a loopback one", () => {
    for (const origin of ["http://10.244.7.5:8080", "http://[fd00::7]:8080"]) {
      const host = origin.slice("http://".length);
      const text = [
        `href="${origin}/about/"`,
        `"url":"${origin.replaceAll("/", "\\/")}\\/wp-json\\/"`,
        `redirect_to=${encodeURIComponent(`${origin}/wp-admin/`)}`,
        `src="//${host}/x.js"`,
      ].join("\n");
      const out = rewriteText(text, origin, BASE);
      expect(out, origin).not.toContain(host);
      expect(out).not.toContain(encodeURIComponent(host));
      expect(out).toContain(`href="${BASE}/about/"`);
      expect(out).toContain(`redirect_to=${encodeURIComponent(BASE)}%2Fwp-admin%2F`);
      expect(out).toContain(`src="${BASE.replace(/^https:/, "")}/x.js"`);
    }
  });

  it("keeps a sandbox's cookies inside its preview: path under the prefix, no Domain", () => {
    expect(scopeCookie("wordpress_logged_in_x=v; path=/; domain=127.0.0.1; HttpOnly", ID)).toBe(
      `wordpress_logged_in_x=v; HttpOnly; Path=/preview/${ID}/`,
    );
    expect(scopeCookie(`wp-settings-1=a; Path=/preview/${ID}/wp-admin`, ID)).toBe(
      `wp-settings-1=a; Path=/preview/${ID}/wp-admin`,
    );
    expect(scopeCookie("a=b; Path=/wp-admin", ID)).toBe(`a=b; Path=/preview/${ID}/wp-admin`);
  });

  it("signs the preview grant for one user, one sandbox and one login session, until the sandbox expires", () => {
    const session = "ab".repeat(32);
    const cookie = previewGrantCookie({
      secret: "s".repeat(32),
      userId: "u1",
      sandboxId: ID,
      sessionIdHash: session,
      expiresAt: new Date(Date.now() + 60_000),
      appUrl: "https://app.example",
      path: `/preview/${ID}/`,
    });
    expect(cookie).toMatch(new RegExp(`Path=/preview/${ID}/; Max-Age=\\d+; HttpOnly; Secure; SameSite=None$`));
    const header = cookie.split(";")[0]!;
    const sessions = (over: Partial<Parameters<typeof signedGrantSessions>[0]>) =>
      signedGrantSessions({
        cookieHeader: header,
        secret: "s".repeat(32),
        userId: "u1",
        sandboxId: ID,
        now: new Date(),
        ...over,
      });
    expect(sessions({})).toEqual([session]);
    expect(sessions({ userId: "u2" })).toEqual([]);
    expect(sessions({ sandboxId: "00000000-0000-0000-0000-000000000000" })).toEqual([]);
    expect(sessions({ secret: "t".repeat(32) })).toEqual([]);
    expect(sessions({ now: new Date(Date.now() + 120_000) })).toEqual([]);
    expect(sessions({ cookieHeader: header.replace(session, "cd".repeat(32)) })).toEqual([]);
    expect(sessions({ cookieHeader: "sw_preview=garbage" })).toEqual([]);
  });

  it("names a public static file only for GET and HEAD in WordPress's own folders, decoded, with a plain ver", () => {
    expect(staticFileCandidate("GET", "/wp-includes/css/dashicons.min.css")).toBe("wp-includes/css/dashicons.min.css");
    expect(staticFileCandidate("HEAD", "/wp-content/themes/t/assets/Inter-VariableFont_slnt%2Cwght.ttf")).toBe(
      "wp-content/themes/t/assets/Inter-VariableFont_slnt,wght.ttf",
    );
    expect(staticFileCandidate("POST", "/wp-includes/css/dashicons.min.css")).toBeUndefined();
    for (const path of [
      "/",
      "/about/",
      "/wp-json/",
      "/wp-admin/",
      "/wp-admin/load-styles.php",
      "/wp-content/uploads/a.png",
      "/wp-login.php",
      "/wp-includes/version.php",
      "/wp-includes/../wp-config.php",
      "/wp-includes/%2e%2e/x.css",
      "/wp-includes/.hidden.css",
      "/wp-includes//x.css",
      "/wp-includes/%FF.css",
      "/wp-content/plugins/p/readme.txt",
    ])
      expect(staticFileCandidate("GET", path), path).toBeUndefined();
    expect(staticFileRequest("wp-includes/x.css", "?ver=6.1.9&rest_route=/wp/v2/users")).toEqual({
      path: "/wp-includes/x.css",
      search: "?ver=6.1.9",
    });
    expect(staticFileRequest("wp-includes/x.css", "?ver=1&ver=2").search).toBe("");
    expect(staticFileRequest("wp-includes/x.css", "?ver=%3Cscript%3E").search).toBe("");
  });
});

describe("apply's id mapping in block markup", () => {
  it("maps image, navigation and media ids from the sandbox to the live site, and leaves others alone", () => {
    const ids = new Map([
      [7, 107],
      [9, 109],
    ]);
    const content = [
      '<!-- wp:image {"id":7,"sizeSlug":"large"} --><figure><img src="x" class="wp-image-7"/></figure><!-- /wp:image -->',
      '<!-- wp:navigation {"ref":9} /-->',
      '<!-- wp:media-text {"mediaId":7} --><div></div><!-- /wp:media-text -->',
      '<!-- wp:image {"id":8} --><figure><img class="wp-image-8"/></figure><!-- /wp:image -->',
    ].join("\n");
    const out = mapBlockIds(content, ids);
    expect(out).toContain('<!-- wp:image {"id":107,"sizeSlug":"large"} -->');
    expect(out).toContain('class="wp-image-107"');
    expect(out).toContain('<!-- wp:navigation {"ref":109} /-->');
    expect(out).toContain('<!-- wp:media-text {"mediaId":107} -->');
    expect(out).toContain('<!-- wp:image {"id":8} -->');
    expect(out).toContain('class="wp-image-8"');
  });
});

// ------------------------------------------------------------------ against a real sandbox

useTestDatabase();
const APP = "http://localhost:3000";
const PASSWORD = "a long and unusual passphrase 7";

describe("the preview of a real sandbox", () => {
  let t: TestSandboxes;
  let owner: Awaited<ReturnType<typeof newUser>>;
  let password = PASSWORD;
  let sandbox: SandboxView;
  let containerId: string;
  const secret = "Only for the owner: the vault code is 4711";
  let plansId: number;
  let diaryId: number;

  const open = (path: string, options: { cookie?: string; method?: string } = {}) =>
    call(options.method === "POST" ? previewPost : previewGet, {
      path: `/preview/${sandbox.id}${path}`,
      params: { sandboxId: sandbox.id, path: path.split("?")[0]!.split("/").filter(Boolean) },
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.method ? { method: options.method } : {}),
    });
  /** A fresh login session of the owner (its cookie). */
  async function signIn() {
    const res = await call(login, { body: { email: owner.email, password } });
    expect(res.status).toBe(200);
    return res.cookie!;
  }
  /** A fresh login session of the owner, and the preview grant that session earns. */
  async function ownerSession() {
    const cookie = await signIn();
    const page = await open("/", { cookie });
    expect(page.status).toBe(200);
    const grant = page.setCookie.find((c) => c.startsWith("sw_preview="))!.split(";")[0]!;
    expect((await open("/wp-json/", { cookie: grant })).status).toBe(200);
    return { cookie, grant };
  }

  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0, appUrl: APP });
    await setSandboxManagerForTests(t.manager);
    owner = await newUser("preview-owner");
    sandbox = await t.manager.createSandbox({ userId: owner.id });
    containerId = (await findSandboxById({ id: sandbox.id }))!.containerId!;
    const client = await t.clientFor(sandbox.id);
    await client.post("/wp/v2/pages", { title: "Vault", content: secret, status: "publish", password: "pw-4711" });
    plansId = (await client.post<{ id: number }>("/wp/v2/pages", { title: "Plans", content: secret, status: "draft" }))
      .data.id;
    diaryId = (
      await client.post<{ id: number }>("/wp/v2/pages", { title: "Diary", content: "Dear diary", status: "private" })
    ).data.id;
  });
  afterAll(async () => {
    await setSandboxManagerForTests(undefined);
    await t?.cleanup();
  });

  it("asks the engine for nothing on the owner's first page: provisioning left the viewer's hash in the sandbox", async () => {
    const kept = await t.engine.exec(containerId, ["cat", "/data/preview-viewer"]);
    expect(kept.stdout).toBe(previewViewerHash(env().SESSION_SECRET, sandbox.id));
    const exec = vi.spyOn(t.manager.fleet, "exec");
    try {
      const draft = await open(`/?page_id=${plansId}`, { cookie: owner.cookie });
      expect(draft.status).toBe(200);
      expect(draft.text).toContain(secret);
      expect(exec).not.toHaveBeenCalled();
    } finally {
      exec.mockRestore();
    }
  });

  it("writes the viewer's hash through the engine when the sandbox does not hold it yet", async () => {
    // As an instance that did not provision the sandbox, after a rotated secret: the token is new to the sandbox.
    const rotated = "a rotated session secret, longer than 32 characters";
    const header = await previewViewerHeader({
      exec: t.manager.fleet.exec.bind(t.manager.fleet),
      sandbox: { id: sandbox.id, containerId },
      secret: rotated,
    });
    expect(header).toEqual({ [PREVIEW_VIEWER_HEADER]: previewViewerToken(rotated, sandbox.id) });
    const kept = await t.engine.exec(containerId, ["cat", "/data/preview-viewer"]);
    expect(kept.stdout).toBe(previewViewerHash(rotated, sandbox.id));
    const { endpoint } = (await findSandboxById({ id: sandbox.id }))!;
    const draft = await fetch(`${endpoint}/?page_id=${plansId}`, { headers: header });
    expect(draft.status).toBe(200);
    expect(await draft.text()).toContain(secret);
    const restored = previewViewerHash(env().SESSION_SECRET, sandbox.id);
    await t.engine.exec(containerId, ["sh", "-c", 'printf %s "$1" > /data/preview-viewer', "sh", restored]);
  });

  it("opens a draft and a private page in the owner's preview, and for nobody else", async () => {
    const draft = await open(`/?page_id=${plansId}`, { cookie: owner.cookie });
    expect(draft.status).toBe(200);
    expect(draft.text).toContain(secret);
    const diary = await open(`/?page_id=${diaryId}`, { cookie: owner.cookie });
    expect(diary.status).toBe(200);
    expect(diary.text).toContain("Dear diary");

    const stranger = await newUser("preview-draft-stranger");
    for (const cookie of [stranger.cookie, undefined]) {
      const res = await open(`/?page_id=${plansId}`, { cookie });
      expect(res.status).toBe(404);
      expect(res.text).not.toContain(secret);
    }
    // Straight to the sandbox's endpoint, with or without a made-up viewer header: WordPress's 404.
    const { endpoint } = (await findSandboxById({ id: sandbox.id }))!;
    for (const headers of [{}, { "x-sitewright-preview-viewer": "made-up" }] as Record<string, string>[]) {
      const direct = await fetch(`${endpoint}/?page_id=${plansId}`, { headers });
      expect(direct.status).toBe(404);
      expect(await direct.text()).not.toContain(secret);
    }
  });

  it("gives anonymous requests shaped like assets nothing of WordPress: no REST, no pages, no users", async () => {
    for (const path of [
      "/wp-includes/css/nothing-here.css?rest_route=/wp/v2/users",
      "/wp-includes/css/nothing-here.css?rest_route=/wp/v2/pages",
      "/wp-content/themes/nothing/style.css?rest_route=/wp/v2/pages&context=view",
      "/wp-includes/js/nothing.js?rest_route=/wp/v2/pages&status=draft",
      "/wp-content/plugins/x/y.png?p=1&preview=true",
      "/wp-admin/load-styles.php?load[]=dashicons",
      "/wp-content/uploads/a.png?rest_route=/wp/v2/users",
      "/?rest_route=/wp/v2/users",
    ]) {
      const res = await open(path);
      expect(res.status, path).toBe(404);
      expect(res.json.error.code, path).toBe("not_found");
      expect(res.text).not.toContain(secret);
      expect(res.setCookie, path).toEqual([]);
    }
    // A real file with a query that would reach WordPress: the file, and the query never gets there.
    const css = await open("/wp-includes/css/dashicons.min.css?ver=1&rest_route=/wp/v2/users");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/text\/css/);
    expect(css.text).not.toContain('"slug"');
  });

  it("serves a theme's real style.css to anyone naming the sandbox, with no cookie either way", async () => {
    const themes = await t.engine.exec(containerId, ["ls", "/srv/wordpress/wp-content/themes"]);
    const theme = themes.stdout.split("\n").find((name) => name && !name.includes("."))!;
    const res = await open(`/wp-content/themes/${theme}/style.css?ver=2`, { cookie: "wordpress_logged_in_x=y" });
    expect(res.status).toBe(200);
    expect(res.text).toContain("Theme Name:");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.setCookie).toEqual([]);
    expect((await open(`/wp-content/themes/${theme}/style.css`, { method: "POST" })).status).toBe(404);
  });

  it("serves every style, script and font the front page names to a cookieless, cross-origin request", async () => {
    const home = await open("/", { cookie: await signIn() });
    const html = home.text.replaceAll("&#038;", "&").replaceAll("&amp;", "&");
    const base = `${APP}/preview/${sandbox.id}/`;
    const urls = new Set<string>();
    for (const match of html.matchAll(/https?:\/\/[^"'\s)<>]+/g)) {
      const url = match[0];
      if (url.startsWith(base) && /\.(css|js|woff2?|ttf|svg|png)(\?|$)/.test(url)) urls.add(url);
    }
    expect(urls.size).toBeGreaterThan(0);
    for (const url of urls) {
      const { pathname, search } = new URL(url);
      const res = await open(pathname.slice(`/preview/${sandbox.id}`.length) + search);
      expect(res.status, url).toBe(200);
      // Fonts and module scripts are fetched with CORS from the preview's opaque origin.
      expect(res.headers.get("access-control-allow-origin"), url).toBe("*");
    }
  });

  it("lets only the owner use a one-time wp-admin link: a stranger's asset-shaped path does not spend it", async () => {
    const link = await t.manager.createLoginLink({ userId: owner.id, id: sandbox.id });
    const token = new URL(link.url).searchParams.get("sitewright_login")!;
    const stranger = await newUser("preview-stranger");
    for (const cookie of [stranger.cookie, undefined]) {
      const res = await open(`/wp-includes/css/nothing.css?sitewright_login=${token}`, { cookie });
      expect(res.status).toBe(404);
      expect(res.setCookie).toEqual([]);
      expect((await open(`/?sitewright_login=${token}`, { cookie })).status).toBe(404);
    }
    const redeemed = await open(`/?sitewright_login=${token}`, { cookie: owner.cookie });
    expect(redeemed.status).toBe(302);
    expect(redeemed.headers.get("location")).toBe(`${sandbox.previewUrl}wp-admin/`);
  });

  it("refuses the preview grant once its login session logged out", async () => {
    const { cookie, grant } = await ownerSession();
    expect((await call(logout, { method: "POST", cookie, headers: { origin: APP } })).status).toBe(204);
    const res = await open("/wp-json/", { cookie: grant });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe("not_found");
  });

  it("refuses the grants of the sessions a password change signed out", async () => {
    const a = await ownerSession();
    const b = await ownerSession();
    const next = `${PASSWORD} changed`;
    const changed = await call(changePassword, {
      cookie: b.cookie,
      headers: { origin: APP },
      body: { currentPassword: password, newPassword: next },
    });
    expect(changed.status).toBe(204);
    password = next;
    expect((await open("/wp-json/", { cookie: a.grant })).status).toBe(404);
    // The session that changed the password stays signed in, and so does its grant.
    expect((await open("/wp-json/", { cookie: b.grant })).status).toBe(200);
  });

  it("refuses every grant after sign out everywhere", async () => {
    const a = await ownerSession();
    const b = await ownerSession();
    const out = await call(signOutEverywhere, { method: "DELETE", cookie: b.cookie, headers: { origin: APP } });
    expect(out.status).toBe(204);
    for (const grant of [a.grant, b.grant]) expect((await open("/", { cookie: grant })).status).toBe(404);
  });

  it("passes only allowlisted sandbox response headers: no Refresh, Link, Clear-Site-Data or CORS", async () => {
    const php = `<?php
header('Refresh: 0; url=https://evil.example/');
header('Link: <https://evil.example/x.css>; rel=preload; as=style');
header('Clear-Site-Data: "cookies", "storage"');
header('Access-Control-Allow-Origin: https://evil.example');
header('Access-Control-Allow-Credentials: true');
header('Content-Security-Policy: default-src *');
header('X-Sandbox-Says: hello');
header('ETag: "v1"');
header('Content-Disposition: inline; filename="h.txt"');
setcookie('sandbox_cookie', 'v', ['path' => '/']);
echo 'headers sent';`;
    const write = await t.engine.exec(containerId, [
      "sh",
      "-c",
      'printf %s "$1" > /data/uploads/sw-headers.php',
      "sh",
      php,
    ]);
    expect(write.exitCode).toBe(0);
    const res = await open("/wp-content/uploads/sw-headers.php", { cookie: await signIn() });
    expect(res.status).toBe(200);
    expect(res.text).toBe("headers sent");
    for (const name of [
      "refresh",
      "link",
      "clear-site-data",
      "access-control-allow-origin",
      "access-control-allow-credentials",
      "x-sandbox-says",
      "x-powered-by",
    ])
      expect(res.headers.get(name), name).toBeNull();
    expect(res.headers.get("content-security-policy")).toMatch(/^sandbox allow-scripts/);
    expect(res.headers.get("etag")).toBe('"v1"');
    expect(res.headers.get("content-disposition")).toBe('inline; filename="h.txt"');
    expect(res.setCookie).toContain(`sandbox_cookie=v; Path=/preview/${sandbox.id}/`);
  });

  it("cuts a chunked 64 MB body at the limit with 413 payload_too_large, memory flat", async () => {
    const cookie = await signIn();
    const chunk = new Uint8Array(64 * 1024);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 64 * 1024 * 1024) return controller.close();
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const request = new Request(`${APP}/preview/${sandbox.id}/`, {
      method: "POST",
      headers: { cookie, "content-type": "application/octet-stream" },
      body,
      duplex: "half",
    } as RequestInit);
    const res = await previewPost(request, { params: Promise.resolve({ sandboxId: sandbox.id }) });
    clearInterval(sampler);
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("payload_too_large");
    expect(pulled).toBeGreaterThan(MAX_FORWARDED_BODY);
    expect(pulled).toBeLessThan(MAX_FORWARDED_BODY + 2 * 1024 * 1024);
    expect(peak - before).toBeLessThan(24 * 1024 * 1024);
  });

  it("answers a multipart upload over the limit 413 payload_too_large, declared or chunked", async () => {
    const boundary = "----sitewright-test";
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const filler = new Uint8Array(256 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
      },
      pull(controller) {
        if (sent >= 20 * 1024 * 1024) return controller.close();
        sent += filler.byteLength;
        controller.enqueue(filler);
      },
    });
    const post = (init: RequestInit) =>
      previewPost(new Request(`${APP}/preview/${sandbox.id}/wp-admin/async-upload.php`, init), {
        params: Promise.resolve({ sandboxId: sandbox.id, path: ["wp-admin", "async-upload.php"] }),
      });
    // As curl sends a large form: `Expect: 100-continue` (which fetch refuses to forward).
    const headers = {
      cookie: await signIn(),
      "content-type": `multipart/form-data; boundary=${boundary}`,
      expect: "100-continue",
    };
    const chunked = await post({ method: "POST", headers, body, duplex: "half" } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).error.code).toBe("payload_too_large");
    const declared = await post({
      method: "POST",
      headers: { ...headers, "content-length": String(101 * 1024 * 1024) },
      body: new ReadableStream({ pull: (controller) => controller.enqueue(filler) }),
      duplex: "half",
    } as RequestInit);
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.code).toBe("payload_too_large");
  });

  it("never answers a 5xx for a random path, id or query, signed in or not", async () => {
    const cookie = await signIn();
    const segment = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom("..", ".", "", "%FF", "%00", "%C0%AF", "%zz", "%", "wp-includes", "wp-json", "a".repeat(300)),
      fc
        .uint8Array({ minLength: 1, maxLength: 4 })
        .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")),
    );
    const id = fc.oneof(
      fc.constant(() => sandbox.id),
      segment.map((s) => () => s),
    );
    await fc.assert(
      fc.asyncProperty(
        id,
        fc.array(segment, { maxLength: 5 }),
        fc.string({ maxLength: 20 }),
        fc.boolean(),
        async (idOf, segments, query, signedIn) => {
          const rawId = idOf();
          const raw = `/preview/${[rawId, ...segments].map(escapeLoosely).join("/")}`;
          let url: URL;
          try {
            url = new URL(`${APP}${raw}?${encodeURIComponent(query)}`);
          } catch {
            return;
          }
          // What Next.js hands over: each segment decoded when it decodes, raw when it does not.
          const parts = url.pathname.split("/").slice(2).map(decodeLoosely);
          const res = await previewGet(new Request(url, { headers: signedIn ? { cookie } : {} }), {
            params: Promise.resolve({ sandboxId: parts[0] ?? "", path: parts.slice(1) }),
          });
          expect(res.status, raw).toBeLessThan(500);
          await res.body?.cancel();
        },
      ),
      { numRuns: 80 },
    );
  });
});

function escapeLoosely(segment: string) {
  return segment.replace(/[^A-Za-z0-9%._~-]/g, (c) => encodeURIComponent(c));
}

function decodeLoosely(segment: string) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
