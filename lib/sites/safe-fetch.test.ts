import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "../env";
import { AppError } from "../errors";
import { blockedReason, isPublicAddress } from "./ip";
import { assertPublicHost, type Resolver, SafeFetchError, safeFetch } from "./safe-fetch";
import { makeTestCertificates } from "./testing/tls";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const certs = makeTestCertificates(["site.test", "other.test", "localhost", "127.0.0.1"]);
let handler: Handler = (_request, response) => response.end("hello");
const seen: Array<{ url: string; authorization?: string; servername?: string }> = [];

const httpsServer = createHttpsServer({ cert: certs.cert, key: certs.key }, (request, response) => {
  seen.push({
    url: request.url ?? "",
    authorization: request.headers.authorization,
    servername: (request.socket as TLSSocket).servername || undefined,
  });
  handler(request, response);
});
const httpServer = createHttpServer((request, response) => handler(request, response));
let port = 0;
let httpPort = 0;

/** Only loopback: every name the tests use resolves to 127.0.0.1. */
const loopbackResolver: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
const base = { ca: certs.ca, resolver: loopbackResolver, allowlist: ["site.test", "other.test"] };

beforeAll(async () => {
  await new Promise<void>((resolve) => httpsServer.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  port = (httpsServer.address() as AddressInfo).port;
  httpPort = (httpServer.address() as AddressInfo).port;
});
afterAll(async () => {
  httpsServer.closeAllConnections();
  httpServer.closeAllConnections();
  await Promise.all([httpsServer, httpServer].map((server) => new Promise((resolve) => server.close(resolve))));
});
const allowlistAtStart = process.env.SITE_HOST_ALLOWLIST;
afterEach(() => {
  handler = (_request, response) => response.end("hello");
  seen.length = 0;
  resetEnvForTests({ SITE_HOST_ALLOWLIST: allowlistAtStart });
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("the address check", () => {
  const forbiddenLiterals = [
    "https://127.0.0.1/",
    "https://127.255.255.254/",
    "https://2130706433/",
    "https://0177.0.0.1/",
    "https://0x7f.1/",
    "https://0x7f000001/",
    "https://127.1/",
    "https://0/",
    "https://0.0.0.0/",
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://172.31.255.255/",
    "https://192.168.0.1/",
    "https://100.64.0.1/",
    "https://100.127.255.255/",
    "https://169.254.169.254/latest/meta-data/",
    "https://224.0.0.1/",
    "https://239.255.255.250/",
    "https://240.0.0.1/",
    "https://255.255.255.255/",
    "https://192.0.2.10/",
    "https://198.18.0.1/",
    "https://[::1]/",
    "https://[::]/",
    "https://[0:0:0:0:0:0:0:1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:169.254.169.254]/",
    "https://[::ffff:8.8.8.8]/",
    "https://[::127.0.0.1]/",
    "https://[64:ff9b::7f00:1]/",
    "https://[2002:7f00:1::]/",
    "https://[2001:db8::1]/",
    "https://[fc00::1]/",
    "https://[fd12:3456::1]/",
    "https://[fe80::1]/",
    "https://[ff02::1]/",
    "https://[fec0::1]/",
  ];

  it.each(forbiddenLiterals)("refuses %s without asking the resolver", async (url) => {
    let asked = 0;
    const error = await refusal(
      assertPublicHost(url, {
        allowlist: [],
        resolver: async () => {
          asked++;
          return [{ address: "93.184.216.34", family: 4 }];
        },
      }),
    );
    expect(error.code).toBe("forbidden_host");
    expect(error.status).toBe(422);
    expect(asked).toBe(0);
  });

  it("refuses a name that resolves to loopback, like 127.0.0.1.nip.io", async () => {
    const resolver: Resolver = async (name) =>
      name === "127.0.0.1.nip.io" ? [{ address: "127.0.0.1", family: 4 }] : [];
    const error = await refusal(assertPublicHost("https://127.0.0.1.nip.io/", { allowlist: [], resolver }));
    expect(error.code).toBe("forbidden_host");
  });

  it("refuses localhost through the system resolver", async () => {
    const error = await refusal(assertPublicHost("https://localhost/", { allowlist: [] }));
    expect(error.code).toBe("forbidden_host");
  });

  it("refuses a name when any one of its A or AAAA answers is private", async () => {
    const resolver: Resolver = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "fd00::1", family: 6 },
    ];
    const error = await refusal(assertPublicHost("https://mixed.example/", { allowlist: [], resolver }));
    expect(error.code).toBe("forbidden_host");
  });

  it("accepts a name whose every address is public, without connecting", async () => {
    const resolver: Resolver = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "2606:2800:220:1:248:1893:25c8:1946", family: 6 },
    ];
    const checked = await assertPublicHost("https://www.example.com/", { allowlist: [], resolver });
    expect(checked).toMatchObject({ hostname: "www.example.com", allowlisted: false });
    expect(checked.addresses).toHaveLength(2);
  });

  it("tells public unicast addresses from the rest", () => {
    for (const address of [
      "8.8.8.8",
      "1.1.1.1",
      "93.184.216.34",
      "100.128.0.1",
      "172.32.0.1",
      "2606:4700::1111",
      "2a00:1450::1",
    ]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    expect(blockedReason("169.254.169.254")).toMatch(/metadata/);
    expect(blockedReason("::ffff:1.2.3.4")).toBe("IPv4-mapped IPv6");
    expect(blockedReason("fe80::1%eth0")).toBeDefined();
  });

  it("refuses a URL carrying a user name or password", async () => {
    const error = await refusal(assertPublicHost("https://user:pass@example.com/", { allowlist: [] }));
    expect(error.code).toBe("invalid_input");
  });

  it("lets an allowlisted host resolve to loopback", async () => {
    const checked = await assertPublicHost("https://site.test:8443/", {
      allowlist: ["site.test"],
      resolver: loopbackResolver,
    });
    expect(checked).toMatchObject({ allowlisted: true, addresses: [{ address: "127.0.0.1", family: 4 }] });
  });

  it("reads the allowlist from SITE_HOST_ALLOWLIST", async () => {
    resetEnvForTests({ SITE_HOST_ALLOWLIST: "other.test, localhost" });
    const checked = await assertPublicHost("https://LOCALHOST/");
    expect(checked.allowlisted).toBe(true);
  });

  it("says when a name cannot be resolved", async () => {
    const error = await refusal(assertPublicHost("https://nowhere.invalid/", { allowlist: [] }));
    expect(error).toBeInstanceOf(SafeFetchError);
    expect((error as SafeFetchError).reason).toBe("dns");
  });
});

describe("safe fetch against loopback servers", () => {
  it("fetches an allowlisted https host, verifying its certificate by name over the pinned address", async () => {
    const response = await safeFetch(`https://site.test:${port}/hello`, base);
    expect(response.status).toBe(200);
    expect(response.text()).toBe("hello");
    expect(seen).toEqual([{ url: "/hello", authorization: undefined, servername: "site.test" }]);
  });

  it("pins the connection to the address it checked, whatever the resolver says next (DNS rebinding)", async () => {
    const answers = ["127.0.0.1", "127.0.0.2"];
    let asked = 0;
    const rebinding: Resolver = async () => [{ address: answers[Math.min(asked++, 1)]!, family: 4 }];
    const response = await safeFetch(`https://site.test:${port}/pinned`, { ...base, resolver: rebinding });
    expect(response.status).toBe(200);
    expect(asked).toBe(1);
  });

  it("refuses a host whose resolver answered public for the check and private for the fetch", async () => {
    let asked = 0;
    const rebinding: Resolver = async () => [{ address: asked++ === 0 ? "93.184.216.34" : "127.0.0.1", family: 4 }];
    await assertPublicHost("https://rebind.example/", { allowlist: [], resolver: rebinding });
    const error = await refusal(
      safeFetch(`https://rebind.example:${port}/`, { ...base, allowlist: [], resolver: rebinding }),
    );
    expect(error.code).toBe("forbidden_host");
    expect(seen).toHaveLength(0);
  });

  it("rejects a certificate that does not name the host", async () => {
    const error = await refusal(safeFetch(`https://unnamed.test:${port}/`, { ...base, allowlist: ["unnamed.test"] }));
    expect((error as SafeFetchError).reason).toBe("tls");
  });

  it("rejects a certificate from a CA it was not told to trust", async () => {
    const error = await refusal(
      safeFetch(`https://site.test:${port}/`, { ...base, ca: makeTestCertificates(["x"]).ca }),
    );
    expect((error as SafeFetchError).reason).toBe("tls");
  });

  it("refuses http, even to an allowlisted host, unless asked to allow it", async () => {
    const error = await refusal(safeFetch(`http://site.test:${httpPort}/`, base));
    expect(error.code).toBe("insecure_url");
    const allowed = await safeFetch(`http://site.test:${httpPort}/`, { ...base, allowHttp: true });
    expect(allowed.text()).toBe("hello");
  });

  it("refuses a redirect to loopback", async () => {
    handler = (_request, response) => response.writeHead(302, { location: `https://127.0.0.1:${port}/admin` }).end();
    const error = await refusal(safeFetch(`https://site.test:${port}/`, base));
    expect(error.code).toBe("forbidden_host");
    expect(seen.map((hit) => hit.url)).toEqual(["/"]);
  });

  it("refuses a redirect to the metadata address before sending anything there", async () => {
    handler = (_request, response) =>
      response.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    const error = await refusal(safeFetch(`https://site.test:${port}/`, base));
    expect(error.code).toBe("forbidden_host");
  });

  it("follows up to three checked redirects and drops credentials when the origin changes", async () => {
    handler = (request, response) => {
      const hop = Number(request.url?.slice(1) || 0);
      if (hop < 3)
        response.writeHead(307, { location: `https://${hop === 1 ? "other" : "site"}.test:${port}/${hop + 1}` }).end();
      else response.end("arrived");
    };
    const response = await safeFetch(`https://site.test:${port}/0`, {
      ...base,
      headers: { authorization: "Bearer x" },
    });
    expect(response.text()).toBe("arrived");
    expect(response.url).toBe(`https://site.test:${port}/3`);
    expect(seen.map((hit) => [hit.url, hit.authorization, hit.servername])).toEqual([
      ["/0", "Bearer x", "site.test"],
      ["/1", "Bearer x", "site.test"],
      ["/2", undefined, "other.test"],
      ["/3", undefined, "site.test"],
    ]);
  });

  it("gives up after three redirects", async () => {
    handler = (request, response) => response.writeHead(302, { location: `${request.url}x` }).end();
    const error = await refusal(safeFetch(`https://site.test:${port}/`, base));
    expect((error as SafeFetchError).reason).toBe("too_many_redirects");
    expect(seen).toHaveLength(4);
  });

  it("returns a redirect unfollowed when asked to follow none", async () => {
    handler = (_request, response) => response.writeHead(302, { location: "/elsewhere" }).end();
    const response = await safeFetch(`https://site.test:${port}/`, { ...base, maxRedirects: 0 });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/elsewhere");
  });

  it("stops reading a response larger than the cap, announced or not", async () => {
    const big = Buffer.alloc(300_000, 97);
    handler = (request, response) => {
      if (request.url === "/chunked") {
        response.write(big.subarray(0, 150_000));
        response.end(big.subarray(150_000));
      } else response.end(big);
    };
    for (const path of ["/announced", "/chunked"]) {
      const error = await refusal(
        safeFetch(`https://site.test:${port}${path}`, { ...base, maxResponseBytes: 200_000 }),
      );
      expect((error as SafeFetchError).reason).toBe("too_large");
    }
    const fits = await safeFetch(`https://site.test:${port}/announced`, { ...base, maxResponseBytes: 300_000 });
    expect(fits.body.length).toBe(300_000);
  });

  it("times out a site that never answers", async () => {
    handler = () => undefined;
    const started = Date.now();
    const error = await refusal(safeFetch(`https://site.test:${port}/`, { ...base, timeoutMs: 300 }));
    expect((error as SafeFetchError).reason).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("says a closed port is unreachable", async () => {
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await refusal(safeFetch(`https://site.test:${closedPort}/`, base));
    expect(error.code).toBe("site_unreachable");
    expect((error as SafeFetchError).reason).toBe("connect");
  });

  it("sends the method, headers and body it was given", async () => {
    handler = (request, response) => {
      let text = "";
      request.on("data", (chunk) => (text += chunk));
      request.on("end", () =>
        response.end(JSON.stringify({ method: request.method, type: request.headers["content-type"], text })),
      );
    };
    const response = await safeFetch(`https://site.test:${port}/echo`, {
      ...base,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":"é"}',
    });
    expect(JSON.parse(response.text())).toEqual({ method: "POST", type: "application/json", text: '{"a":"é"}' });
  });
});
