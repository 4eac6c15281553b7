/**
 * Chromium for the end-to-end specs runs in a network namespace of its own (e2e/support/browser-network.ts), so the
 * container engine's bridges coming and going on the host cannot abort its loads with ERR_NETWORK_CHANGED (issue
 * 39); and the specs retry nothing, so a flaky test fails the run.
 */
import { execFileSync } from "node:child_process";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { chromium } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import config from "../playwright.config";
import { serveSocks, startBrowserNetwork } from "../e2e/support/browser-network";

const root = path.resolve(import.meta.dirname, "..");
let stop: (() => Promise<void>) | null = null;
let server: http.Server;
let port = 0;

beforeAll(async () => {
  // A page that answers after two seconds, so the host's network can change while Chromium waits for it.
  server = http.createServer((request, response) => {
    setTimeout(() => response.end(`<title>slow</title>answered ${request.url}`), request.url === "/slow" ? 2000 : 0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  stop = await startBrowserNetwork();
}, 60_000);

afterAll(async () => {
  await stop?.();
  server?.close();
  delete process.env.SITEWRIGHT_BROWSER_NETNS;
});

/** What a new interface on the host looks like to a container engine making a sandbox's network: a veth pair. */
function addAndRemoveHostInterface(name: string) {
  execFileSync("ip", ["link", "add", name, "type", "veth", "peer", "name", `${name}p`]);
  execFileSync("ip", ["addr", "add", "10.199.254.1/30", "dev", name]);
  execFileSync("ip", ["link", "set", name, "up"]);
  return () => execFileSync("ip", ["link", "del", name]);
}

describe("Chromium for the end-to-end specs", () => {
  it("is launched through the wrapper that puts it in its own namespace, and nothing is retried", () => {
    expect(config.use?.launchOptions?.executablePath).toBe(path.join(root, "scripts/chromium-isolated.sh"));
    expect(config.retries).toBe(0);
    expect(stop).not.toBeNull();
    expect(process.env.SITEWRIGHT_BROWSER_NETNS).toMatch(/^swbrowser-/);
  });

  it("reaches the host's loopback services and nothing else, and sees none of the host's interfaces", async () => {
    const browser = await chromium.launch({
      executablePath: path.join(root, "scripts/chromium-isolated.sh"),
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${port}/a`);
      expect(await page.textContent("body")).toBe("answered /a");
      await page.goto(`http://127.0.0.1:${port}/b`);
      expect(await page.textContent("body")).toBe("answered /b");
      // While a load is in flight the host gains and loses an interface: the namespace never sees it, and the
      // load completes.
      const load = page.goto(`http://localhost:${port}/slow`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const name = `swchurn${process.pid % 10000}`;
      const remove = addAndRemoveHostInterface(name);
      const inside = execFileSync("ip", ["-n", process.env.SITEWRIGHT_BROWSER_NETNS!, "-o", "link"], {
        encoding: "utf8",
      });
      remove();
      expect(inside.trim().split("\n")).toHaveLength(1);
      expect(inside).toMatch(/^1: lo:/);
      await load;
      expect(await page.textContent("body")).toBe("answered /slow");

      // Anything but loopback is refused by the bridge (the tests send no traffic elsewhere).
      await expect(page.goto("http://10.199.254.2:8080/", { timeout: 10_000 })).rejects.toThrow(/ERR_SOCKS|ERR_PROXY/);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe("the SOCKS server Chromium's connections go through", () => {
  /** Connects through `socks` to 127.0.0.1:port; resolves with every byte the tunnel carried, once it closed. */
  async function throughTunnel(socksPort: number, port: number) {
    const socket = net.connect(socksPort, "127.0.0.1");
    const chunks: Buffer[] = [];
    const read = (size: number) =>
      new Promise<Buffer>((resolve) => {
        const take = () => {
          const buffered = Buffer.concat(chunks.splice(0));
          if (buffered.length >= size) {
            socket.off("data", onData);
            chunks.push(buffered.subarray(size));
            resolve(buffered.subarray(0, size));
          } else chunks.push(buffered);
        };
        const onData = (chunk: Buffer) => {
          chunks.push(chunk);
          take();
        };
        socket.on("data", onData);
        take();
      });
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(Buffer.from([5, 1, 0]));
    expect([...(await read(2))]).toEqual([5, 0]);
    const request = Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, 0, 0]);
    request.writeUInt16BE(port, 8);
    socket.write(request);
    expect((await read(10))[1]).toBe(0); // connected
    const rest: Buffer[] = [...chunks.splice(0)];
    socket.on("data", (chunk: Buffer) => rest.push(chunk));
    socket.on("error", () => {});
    await new Promise((resolve) => socket.once("close", resolve));
    return Buffer.concat(rest);
  }

  it("closes the tunnel when its far side fails, and never writes a SOCKS reply into it", async () => {
    // A far side that sends some bytes, then resets the connection (as a TLS server does on a failed handshake).
    const far = net.createServer((socket) => {
      socket.write("bytes of a TLS record");
      setTimeout(() => socket.resetAndDestroy(), 200);
    });
    const socks = net.createServer(serveSocks);
    await new Promise<void>((resolve) => far.listen(0, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => socks.listen(0, "127.0.0.1", resolve));
    try {
      const carried = await throughTunnel((socks.address() as AddressInfo).port, (far.address() as AddressInfo).port);
      // Before: the bytes, then [5, 5, 0, 1, 0, 0, 0, 0, 0, 0] (a SOCKS "connection refused") in the middle of the
      // stream, which Chromium reported as net::ERR_SSL_PROTOCOL_ERROR.
      expect(carried.toString("latin1")).toBe("bytes of a TLS record");
    } finally {
      far.close();
      socks.close();
    }
  });
});
