/**
 * A WordPress site that misbehaves on purpose, on loopback, with the test CA's `localhost` certificate (trusted by
 * vitest workers through NODE_EXTRA_CA_CERTS): it hangs, trickles, answers garbage, resets, or is not even TLS.
 * Counts the connections it sees, so a test can prove that a client stopped calling.
 */
import { createServer as createHttpsServer } from "node:https";
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { readFileSync } from "node:fs";
import { ensureTestCa } from "@/scripts/lib/tls";
import { freePort } from "./private-postgres";

export type Misbehaviour =
  | "down" // nothing listens on the port
  | "hang" // accepts, completes TLS, never answers
  | "trickle" // sends headers, then one byte every 300 ms, forever
  | "html" // 200 with an HTML page
  | "binary" // 200 application/json with random bytes
  | "error_page" // 500 with an HTML page
  | "endless" // 200 application/json that never ends (no length), as fast as it can
  | "reset" // completes TLS, then destroys the connection
  | "not_http" // completes TLS, then writes bytes that are not HTTP
  | "not_tls"; // a plain TCP server writing garbage

export type FakeSite = { origin: string; connections(): number; close(): Promise<void> };

export async function startFakeSite(behaviour: Misbehaviour): Promise<FakeSite> {
  const ca = ensureTestCa();
  const tls = { cert: readFileSync(ca.cert), key: readFileSync(ca.key) };
  let connections = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let server: Server | undefined;

  if (behaviour === "not_tls") {
    server = createTcpServer((socket) => {
      socket.on("error", () => {});
      socket.end(Buffer.from("SSH-2.0-OpenSSH_9.2\r\n\u0000\u00ff garbage"));
    });
  } else if (behaviour === "reset" || behaviour === "not_http") {
    server = createTlsServer(tls, (socket) => {
      socket.on("error", () => {});
      if (behaviour === "reset") socket.destroy();
      else socket.end(Buffer.from("\u0000\u0001\u0002 this is not HTTP at all \u00ff\u00fe\r\n\r\n"));
    });
  } else if (behaviour !== "down") {
    server = createHttpsServer(tls, (request, response) => {
      request.resume();
      switch (behaviour) {
        case "hang":
          return;
        case "trickle": {
          response.writeHead(200, { "content-type": "application/json" });
          response.write("{");
          const timer = setInterval(() => response.write(" "), 300);
          timers.add(timer);
          response.on("close", () => clearInterval(timer));
          return;
        }
        case "html":
          return void response
            .writeHead(200, { "content-type": "text/html" })
            .end("<!doctype html><title>Maintenance</title><h1>Be right back</h1>");
        case "binary":
          return void response
            .writeHead(200, { "content-type": "application/json" })
            .end(Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80, 0x22]));
        case "error_page":
          return void response
            .writeHead(500, { "content-type": "text/html" })
            .end("<h1>There has been a critical error on this website.</h1>");
        case "endless": {
          response.writeHead(200, { "content-type": "application/json" });
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          const pump = () => {
            while (response.write(chunk));
          };
          response.on("drain", pump);
          pump();
          return;
        }
      }
    });
  }

  const port = await freePort();
  if (server) {
    server.on("connection", (socket: Socket) => {
      connections++;
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    server.on("tlsClientError", () => {});
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
  }
  return {
    origin: `https://localhost:${port}`,
    connections: () => connections,
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      if (server) await new Promise((resolve) => server!.close(resolve));
    },
  };
}
