/**
 * Chromium for the end-to-end specs runs in a network namespace of its own (e2e/support/browser-network.ts), so the
 * container engine's bridges coming and going on the host cannot abort its loads with ERR_NETWORK_CHANGED (issue
 * 39); and the specs retry nothing, so a flaky test fails the run.
 */
import { execFileSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { chromium } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import config from "../playwright.config";
import { startBrowserNetwork } from "../e2e/support/browser-network";

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
