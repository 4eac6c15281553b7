/**
 * Keeps Chromium out of the host's network changes (issue 39). While the container engine adds or removes a bridge
 * (every sandbox has its own network), Chromium on the host sees the change through netlink and aborts loads in
 * flight with `net::ERR_NETWORK_CHANGED`. Chromium therefore runs in a network namespace of its own, which has only
 * a loopback interface that nothing else touches; it reaches the host's loopback services (the app, WordPress, the
 * model) through a SOCKS5 proxy: inside the namespace a bridge listens on 127.0.0.1:1080 and hands each connection
 * over a Unix socket (sockets on the file system cross namespaces) to a SOCKS5 server in the host's namespace, which
 * connects only to loopback addresses. `ip netns exec` keeps the file descriptors Playwright drives Chromium by.
 *
 * As a module: startBrowserNetwork() (e2e/global-setup.ts) and its stop(). As a script: the bridge inside the
 * namespace: `node --import tsx browser-network.ts bridge <port> <unix socket>`.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export const PROXY_PORT = 1080;
const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** Whether this machine can make a namespace: root with iproute2 (every CI machine of ours; elsewhere, plain Chromium). */
export function canIsolateBrowser() {
  if (process.env.SITEWRIGHT_BROWSER_NETNS === "off" || process.getuid?.() !== 0) return false;
  try {
    execFileSync("ip", ["netns", "list"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * One SOCKS5 CONNECT, without authentication, to a loopback address only; anything else is refused (reply 0x02).
 * Once connected, the tunnel is the two sockets' bytes and nothing else: a failure of either side closes the other
 * (a SOCKS reply written into an open tunnel would reach Chromium in the middle of its TLS stream, which it reports
 * as `net::ERR_SSL_PROTOCOL_ERROR`).
 */
export function serveSocks(client: net.Socket) {
  client.once("data", (greeting: Buffer) => {
    if (greeting[0] !== 5) return client.destroy();
    client.write(Buffer.from([5, 0]));
    client.once("data", (request: Buffer) => {
      const type = request[3];
      let host = "";
      let offset = 4;
      if (type === 1) {
        host = [...request.subarray(4, 8)].join(".");
        offset = 8;
      } else if (type === 3) {
        const length = request[4] ?? 0;
        host = request.subarray(5, 5 + length).toString("latin1");
        offset = 5 + length;
      } else if (type === 4) {
        host = request.subarray(4, 20).equals(Buffer.from([...Array(15).fill(0), 1])) ? "::1" : "";
        offset = 20;
      }
      const port = request.readUInt16BE(offset);
      if (request[1] !== 1 || !LOOPBACK.has(host)) {
        client.end(Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]));
        return;
      }
      const upstream = net.connect({ host: host === "localhost" ? "127.0.0.1" : host, port });
      const refuse = () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0]));
      upstream.once("error", refuse);
      upstream.once("connect", () => {
        upstream.off("error", refuse);
        upstream.on("error", () => client.destroy());
        client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
        client.pipe(upstream).pipe(client);
      });
      client.once("error", () => upstream.destroy());
    });
  });
  client.on("error", () => client.destroy());
}

/** Inside the namespace: every connection to 127.0.0.1:port goes on to the host's SOCKS server over the Unix socket. */
function runBridge(port: number, socketPath: string) {
  const server = net.createServer((inner) => {
    const outer = net.connect(socketPath);
    inner.pipe(outer).pipe(inner);
    const close = () => {
      inner.destroy();
      outer.destroy();
    };
    inner.on("error", close);
    outer.on("error", close);
  });
  server.listen(port, "127.0.0.1", () => process.stdout.write("ready\n"));
}

/**
 * Makes the namespace, its bridge and the host's SOCKS server; sets SITEWRIGHT_BROWSER_NETNS, which
 * scripts/chromium-isolated.sh (Playwright's executablePath) reads. Returns stop(), or null where it cannot.
 */
export async function startBrowserNetwork(): Promise<(() => Promise<void>) | null> {
  if (!canIsolateBrowser()) return null;
  const name = `swbrowser-${process.pid}`;
  const socketPath = path.join(tmpdir(), `${name}.sock`);
  rmSync(socketPath, { force: true });
  execFileSync("ip", ["netns", "add", name]);
  execFileSync("ip", ["-n", name, "link", "set", "lo", "up"]);
  const socks = net.createServer(serveSocks);
  await new Promise<void>((resolve, reject) => {
    socks.once("error", reject).listen(socketPath, resolve);
  });
  const bridge = spawn(
    "ip",
    [
      "netns",
      "exec",
      name,
      process.execPath,
      "--import",
      "tsx",
      import.meta.filename,
      "bridge",
      String(PROXY_PORT),
      socketPath,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    bridge.stdout?.once("data", () => resolve());
    bridge.once("exit", (code) => reject(new Error(`the browser's network bridge exited (${code})`)));
  });
  process.env.SITEWRIGHT_BROWSER_NETNS = name;
  return async () => {
    bridge.kill();
    socks.close();
    rmSync(socketPath, { force: true });
    try {
      execFileSync("ip", ["netns", "delete", name]);
    } catch {
      // already gone
    }
  };
}

const [, , command, bridgePort, bridgeSocket] = process.argv;
if (command === "bridge" && bridgeSocket && existsSync(bridgeSocket)) runBridge(Number(bridgePort), bridgeSocket);
