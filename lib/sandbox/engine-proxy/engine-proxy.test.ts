/**
 * The engine proxy in front of the real Podman (docs/deployment.md, "The sandbox engine"): the app's own sandbox
 * driver starts, provisions, checks and removes a sandbox through it, while every call the driver never makes is
 * refused and logged — a privileged container, a host bind, another image, a root user, the host's network, an
 * exec or any other call into a container that is not a sandbox, image pulls and builds, volumes, file uploads,
 * lists of everything, networks outside the sandbox pool.
 */
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSandboxById, insertUser } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { type ContainerSpec, dockerOptionsFrom, NETWORK_PREFIX, SandboxEngine } from "../engine";
import { createTestSandboxes, type TestSandboxes } from "../testing";
import { proxySettings } from "./policy.mjs";
import { startEngineProxy } from "./server.mjs";

useTestDatabase();

const upstream = dockerOptionsFrom(process.env.DOCKER_HOST || "unix:///run/podman/podman.sock").socketPath!;
const work = mkdtempSync(path.join(tmpdir(), "sitewright-engine-proxy-"));
const socket = path.join(work, "engine.sock");
const refusals: Array<Record<string, unknown>> = [];
let proxy: Awaited<ReturnType<typeof startEngineProxy>>;
let t: TestSandboxes;
let image = "";
let outsider = "";
/** Dockerode speaking to the proxy, as the app's engine does. */
let viaProxy: Docker;

/** A raw request to the proxy's socket: what a compromised app could send. */
function raw(method: string, requestPath: string, body?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(
      {
        socketPath: socket,
        method,
        path: requestPath,
        headers:
          body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 0,
    (error: { statusCode?: number }) => error.statusCode ?? -1,
  );

beforeAll(async () => {
  // The image is built (or found) directly on the engine, as the operator does with `npm run sandbox:image`.
  const direct = createTestSandboxes();
  image = await direct.manager.image();
  await direct.cleanup();
  proxy = await startEngineProxy({
    listen: socket,
    upstream,
    settings: proxySettings({}),
    log: (level, message, fields) => refusals.push({ level, message, ...fields }),
  });
  viaProxy = new Docker({ socketPath: socket });
  t = createTestSandboxes({ dockerHost: `unix://${socket}`, image, poolSize: 0 });
  outsider = `sitewright-test-outsider-${randomBytes(4).toString("hex")}`;
  execFileSync("podman", ["run", "-d", "--name", outsider, "--entrypoint", "sleep", image, "600"]);
}, 600_000);

afterAll(async () => {
  await t?.cleanup();
  execFileSync("podman", ["rm", "--force", "--ignore", outsider]);
  await proxy?.close();
  rmSync(work, { recursive: true, force: true });
});

async function newUserId() {
  const id = `user-${randomUUID()}`;
  await insertUser({ id, email: `${id}@example.com`, name: null, passwordHash: "unused", createdAt: new Date() });
  return id;
}

/** A create body exactly as the driver makes it, for a sandbox that is never started. */
function driverCreate(overrides: (options: Docker.ContainerCreateOptions) => void) {
  const spec: ContainerSpec = {
    sandboxId: randomUUID(),
    image,
    owner: "nobody",
    namespace: t.namespace,
    expiresAt: new Date(Date.now() + 60_000),
  } as ContainerSpec;
  const options = new SandboxEngine({ docker: viaProxy }).containerOptions(spec);
  overrides(options);
  return options;
}

describe("the sandbox driver through the engine proxy", () => {
  it("offers its socket to its owner and group only", () => {
    expect(statSync(socket).mode & 0o777).toBe(0o660);
  });

  it("starts, provisions, checks and removes a sandbox", async () => {
    const userId = await newUserId();
    const sandbox = await t.manager.createSandbox({ userId });
    const client = await t.clientFor(sandbox.id);
    expect((await client.get<{ wordpress: string }>("/sitewright/v1/info")).data.wordpress).toBeTruthy();
    const row = await findSandboxById({ id: sandbox.id });
    const inside = await t.driver.exec(row!.containerId!, ["cat", "/proc/self/status"]);
    expect(inside.stdout).toMatch(/^NoNewPrivs:\s+1$/m);
    await t.manager.deleteSandbox({ userId, id: sandbox.id });
    expect(await t.engine.inspect(row!.containerId!)).toBeUndefined();
    const networks = await new Docker(dockerOptionsFrom(`unix://${upstream}`)).listNetworks();
    expect(networks.map((n) => n.Name)).not.toContain(`${NETWORK_PREFIX}${sandbox.id}`);
    expect(refusals.filter((r) => r.message === "engine call refused")).toEqual([]);
  }, 180_000);
});

describe("what the engine proxy refuses", () => {
  it("refuses containers the driver would never create", async () => {
    const variants: Array<[string, (o: Docker.ContainerCreateOptions) => void]> = [
      ["privileged", (o) => (o.HostConfig!.Privileged = true)],
      ["a host bind", (o) => (o.HostConfig!.Binds = ["/:/host"])],
      ["a mount", (o) => (o.HostConfig!.Mounts = [{ Type: "bind", Source: "/etc", Target: "/x" }])],
      ["another image", (o) => (o.Image = "localhost/sitewright-app:latest")],
      ["root", (o) => (o.User = "0:0")],
      ["an added capability", (o) => (o.HostConfig!.CapAdd = ["SYS_ADMIN"])],
      ["capabilities kept", (o) => (o.HostConfig!.CapDrop = [])],
      ["new privileges", (o) => (o.HostConfig!.SecurityOpt = [])],
      ["a writable root", (o) => (o.HostConfig!.ReadonlyRootfs = false)],
      ["the host's network", (o) => (o.HostConfig!.NetworkMode = "host")],
      ["the host's pid namespace", (o) => (o.HostConfig!.PidMode = "host")],
      [
        "a device",
        (o) =>
          (o.HostConfig!.Devices = [{ PathOnHost: "/dev/sda", PathInContainer: "/dev/sda", CgroupPermissions: "rwm" }]),
      ],
      [
        "a port on every interface",
        (o) => (o.HostConfig!.PortBindings = { "8080/tcp": [{ HostIp: "0.0.0.0", HostPort: "" }] }),
      ],
      ["no memory limit", (o) => (o.HostConfig!.Memory = 0)],
      ["no label", (o) => (o.Labels = {})],
      ["an unconfined seccomp", (o) => (o.HostConfig!.SecurityOpt = ["no-new-privileges", "seccomp=unconfined"])],
    ];
    for (const [what, change] of variants) {
      const status = await statusOf(viaProxy.createContainer(driverCreate(change)));
      expect({ what, status }).toEqual({ what, status: 403 });
    }
    const name = `sitewright-${randomUUID()}`;
    const body = JSON.stringify({ ...driverCreate(() => {}), name });
    // The engine reads JSON keys case-insensitively: another spelling is refused, not ignored.
    const smuggled = body.replace('"HostConfig":{', '"HostConfig":{"privileged":true,');
    expect((await raw("POST", `/containers/create?name=${name}`, smuggled)).status).toBe(403);
    const doubled = body.replace('"Privileged":false', '"Privileged":false,"Privileged":true');
    expect((await raw("POST", `/containers/create?name=${name}`, doubled)).status).toBe(403);
    expect(execFileSync("podman", ["ps", "-a", "-q", "--filter", `name=${name}`], { encoding: "utf8" }).trim()).toBe(
      "",
    );
  });

  it("refuses every call into a container that is not a sandbox", async () => {
    const container = viaProxy.getContainer(outsider);
    expect(await statusOf(container.inspect())).toBe(403);
    expect(await statusOf(container.exec({ Cmd: ["id"], AttachStdout: true, User: "10001:10001" }))).toBe(403);
    expect(await statusOf(container.logs({ stdout: true, stderr: true, follow: false }))).toBe(403);
    expect(await statusOf(container.start())).toBe(403);
    expect(await statusOf(container.remove({ force: true }))).toBe(403);
    expect(
      execFileSync("podman", ["inspect", "--format", "{{.State.Running}}", outsider], { encoding: "utf8" }),
    ).toMatch(/true/);
  });

  it("refuses what the driver never does, inside a sandbox too", async () => {
    const userId = await newUserId();
    const sandbox = await t.manager.createSandbox({ userId });
    const id = (await findSandboxById({ id: sandbox.id }))!.containerId!;
    try {
      const calls: Array<[string, string, string?]> = [
        ["GET", "/info"],
        ["GET", "/version"],
        ["GET", "/events"],
        ["POST", "/images/create?fromImage=docker.io/library/alpine"],
        ["POST", "/build?t=evil", ""],
        ["DELETE", `/images/${image}`],
        ["GET", "/images/json"],
        ["POST", "/volumes/create", "{}"],
        ["GET", "/containers/json?all=true"],
        ["GET", `/containers/json?filters=${encodeURIComponent('{"label":["other"]}')}`],
        ["GET", "/networks"],
        ["PUT", `/containers/${id}/archive?path=/tmp`, ""],
        ["GET", `/containers/${id}/export`],
        ["POST", `/containers/${id}/attach?stream=true`],
        ["POST", `/containers/${id}/update`, '{"Memory":0}'],
        ["GET", `/containers/${id}/logs?stdout=true&follow=true`],
        ["POST", `/containers/${id}/exec`, '{"Cmd":["id"],"AttachStdout":true,"AttachStderr":true,"User":"0:0"}'],
        ["POST", `/containers/${id}/exec`, '{"Cmd":["id"],"AttachStdout":true,"AttachStderr":true,"Privileged":true}'],
        ["POST", `/exec/${"ab".repeat(32)}/start`, "{}"],
        ["POST", "/networks/podman/connect", `{"Container":"${id}"}`],
        ["GET", `/containers/..%2F..%2Finfo/json`],
        ["GET", "/v4.0.0/libpod/info"],
        ["POST", "/networks/create", '{"Name":"evil","Driver":"bridge"}'],
        ["DELETE", "/networks/podman"],
      ];
      for (const [method, requestPath, body] of calls) {
        const answer = await raw(method, requestPath, body);
        expect({ method, requestPath, status: answer.status }).toEqual({ method, requestPath, status: 403 });
        expect(answer.text).toContain("refused by the Sitewright engine proxy");
      }
      const outside = new SandboxEngine({ docker: viaProxy }).networkOptions(
        { sandboxId: randomUUID(), namespace: t.namespace } as ContainerSpec,
        { subnet: "192.168.0.0/28", gateway: "192.168.0.1" },
      );
      expect(await statusOf(viaProxy.createNetwork(outside))).toBe(403);
      // What the driver does with it still works.
      const listed = await viaProxy.listContainers({ all: true, filters: { label: ["sitewright.sandbox"] } });
      expect(listed.map((c) => c.Id)).toContain(id);
      expect(listed.map((c) => c.Names.join())).not.toContain(`/${outsider}`);
    } finally {
      await t.manager.deleteSandbox({ userId, id: sandbox.id });
    }
  }, 180_000);

  it("logs each refusal as one line with the call and the reason", () => {
    const refused = refusals.filter((r) => r.message === "engine call refused");
    expect(refused.length).toBeGreaterThan(30);
    expect(refused).toContainEqual(
      expect.objectContaining({ level: "warn", method: "GET", path: "/info", reason: expect.any(String) }),
    );
  });
});
