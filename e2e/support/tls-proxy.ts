/**
 * https in front of the app for end-to-end runs, as a production reverse proxy would be: the plugin insists on a
 * verified https service URL, and the session cookie becomes `__Host-sw_session`, Secure. Streams responses (the
 * chat's event stream) and appends the client address to X-Forwarded-For.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";

export async function startTlsProxy({
  cert,
  key,
  upstreamPort,
  port = 0,
}: {
  cert: string;
  key: string;
  upstreamPort: number;
  port?: number;
}) {
  const server = https.createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
    const forwarded = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    const upstream = http.request(
      {
        host: "127.0.0.1",
        port: upstreamPort,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, "x-forwarded-for": forwarded, "x-forwarded-proto": "https" },
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end("upstream unavailable");
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
