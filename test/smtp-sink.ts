/**
 * A local SMTP server for tests that keeps what it receives: the app sends through real nodemailer SMTP to it.
 * Plain SMTP on loopback (no TLS), `AUTH PLAIN`/`AUTH LOGIN` with the credentials in its URL, single-part text
 * messages decoded (quoted-printable, base64). With `dir`, each message is also written there as JSON, for specs that
 * run in another process than the sink (e2e/global-setup.ts).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import path from "node:path";

export type CapturedMail = {
  from: string;
  to: string[];
  subject: string;
  text: string;
  headers: Record<string, string>;
  /** The user the client authenticated as, if it did. */
  authUser?: string;
  receivedAt: number;
};

export type SmtpSink = {
  port: number;
  /** `smtp://user:pass@127.0.0.1:port`, what SMTP_URL should be. */
  url: string;
  messages: CapturedMail[];
  /** The first message (already received or still to come) to `to` that matches; fails after `timeoutMs`. */
  waitFor(to: string, match?: (mail: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  close(): Promise<void>;
};

export type SinkOptions = {
  user?: string;
  pass?: string;
  dir?: string;
  /** Waits this long before greeting each connection (a slow mail server). */
  greetingDelayMs?: number;
};

export async function startSmtpSink(options: SinkOptions = {}): Promise<SmtpSink> {
  const user = options.user ?? "sink";
  const pass = options.pass ?? "sink-password";
  const messages: CapturedMail[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  if (options.dir) mkdirSync(options.dir, { recursive: true });
  const receive = (mail: CapturedMail) => {
    messages.push(mail);
    if (options.dir) {
      const name = `${mail.receivedAt}-${messages.length}.json`;
      writeFileSync(path.join(options.dir, name), JSON.stringify(mail, null, 2));
    }
    for (const wake of waiters) wake();
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    const greet = () => serve(socket, { user, pass }, receive);
    if (options.greetingDelayMs) setTimeout(greet, options.greetingDelayMs);
    else greet();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    messages,
    waitFor(to, match = () => true, timeoutMs = 10_000) {
      const find = () => messages.find((m) => m.to.includes(to.toLowerCase()) && match(m));
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = find();
          if (!found) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Messages a sink started with `dir` has written there, oldest first. */
export function readMailDir(dir: string): CapturedMail[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
  return names
    .map((name) => JSON.parse(readFileSync(path.join(dir, name), "utf8")) as CapturedMail)
    .sort((a, b) => a.receivedAt - b.receivedAt);
}

/** The first `${appUrl}${pathname}?token=…` link in a message, and its token. */
export function linkIn(mail: CapturedMail, pathname: string): { url: string; token: string } {
  const match = mail.text.match(new RegExp(`https?://[^\\s]+${pathname}\\?token=([A-Za-z0-9_-]+)`));
  if (!match) throw new Error(`no ${pathname} link in: ${mail.text}`);
  return { url: match[0], token: match[1]! };
}

type Session = { from: string; to: string[]; authUser?: string; data?: string[] };
type Credentials = { user: string; pass: string };
/** One client's conversation: what it has said so far, and where the next line goes. */
type Conversation = {
  socket: Socket;
  credentials: Credentials;
  session: Session;
  /** Set while an AUTH exchange waits for the client's next line. */
  pendingAuth?: (line: string) => void;
};

const reply = (c: Conversation, text: string) => c.socket.write(`${text}\r\n`);

/** One SMTP conversation, line by line (RFC 5321, without PIPELINING or extensions beyond AUTH). */
function serve(socket: Socket, credentials: Credentials, receive: (mail: CapturedMail) => void) {
  const c: Conversation = { socket, credentials, session: { from: "", to: [] } };
  let buffer = "";
  reply(c, "220 sitewright-test-sink ESMTP");
  socket.on("data", (chunk) => {
    buffer += chunk.toString("latin1");
    for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const { data } = c.session;
      if (data && line === ".") {
        receive(parseMessage(c.session, data.join("\r\n")));
        c.session = { from: "", to: [], authUser: c.session.authUser };
        reply(c, "250 2.0.0 queued");
      } else if (data) data.push(line.startsWith("..") ? line.slice(1) : line);
      else if (c.pendingAuth) {
        const next = c.pendingAuth;
        c.pendingAuth = undefined;
        next(line);
      } else command(c, line);
    }
  });
}

function command(c: Conversation, line: string) {
  const [verb = "", ...rest] = line.split(" ");
  const argument = rest.join(" ");
  switch (verb.toUpperCase()) {
    case "EHLO":
      return reply(c, "250-sitewright-test-sink\r\n250-8BITMIME\r\n250-AUTH PLAIN LOGIN\r\n250 SMTPUTF8");
    case "HELO":
      return reply(c, "250 sitewright-test-sink");
    case "AUTH":
      return startAuth(c, argument);
    case "MAIL":
      if (!c.session.authUser) return reply(c, "530 5.7.0 authentication required");
      c.session.from = address(argument);
      return reply(c, "250 2.1.0 ok");
    case "RCPT":
      c.session.to.push(address(argument).toLowerCase());
      return reply(c, "250 2.1.5 ok");
    case "DATA":
      if (c.session.to.length === 0) return reply(c, "503 5.5.1 no recipients");
      c.session.data = [];
      return reply(c, "354 end with <CRLF>.<CRLF>");
    case "RSET":
      c.session = { from: "", to: [], authUser: c.session.authUser };
      return reply(c, "250 2.0.0 ok");
    case "NOOP":
      return reply(c, "250 2.0.0 ok");
    case "QUIT":
      reply(c, "221 2.0.0 bye");
      return c.socket.end();
    default:
      return reply(c, "502 5.5.2 command not recognized");
  }
}

const fromBase64 = (text: string) => Buffer.from(text, "base64").toString("utf8");

function authenticate(c: Conversation, user: string, pass: string) {
  if (user === c.credentials.user && pass === c.credentials.pass) {
    c.session.authUser = user;
    reply(c, "235 2.7.0 authenticated");
  } else reply(c, "535 5.7.8 authentication failed");
}

/** AUTH PLAIN (with or without the initial response) and AUTH LOGIN. */
function startAuth(c: Conversation, argument: string) {
  const [mechanism = "", initial] = argument.split(" ");
  const plain = (encoded: string) => {
    const [, user = "", pass = ""] = fromBase64(encoded).split("\0");
    authenticate(c, user, pass);
  };
  if (mechanism.toUpperCase() === "PLAIN") {
    if (initial) return plain(initial);
    c.pendingAuth = plain;
    return reply(c, "334 ");
  }
  if (mechanism.toUpperCase() === "LOGIN") {
    c.pendingAuth = (userLine) => {
      c.pendingAuth = (passLine) => authenticate(c, fromBase64(userLine), fromBase64(passLine));
      reply(c, `334 ${Buffer.from("Password:").toString("base64")}`);
    };
    return reply(c, `334 ${Buffer.from("Username:").toString("base64")}`);
  }
  return reply(c, "504 5.5.4 mechanism not supported");
}

const address = (argument: string) => argument.match(/<([^>]*)>/)?.[1] ?? argument.replace(/^[A-Z]+:/i, "").trim();

/** Headers (unfolded, lowercased names) and the decoded text of a single-part message. */
function parseMessage(session: Session, raw: string): CapturedMail {
  const split = raw.indexOf("\r\n\r\n");
  const head = split >= 0 ? raw.slice(0, split) : raw;
  const body = split >= 0 ? raw.slice(split + 4) : "";
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (/^multipart\//i.test(headers["content-type"] ?? "")) throw new Error("the test sink reads single-part mail only");
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  let bytes: Buffer;
  if (encoding === "quoted-printable") bytes = decodeQuotedPrintable(body);
  else if (encoding === "base64") bytes = Buffer.from(body.replace(/\s+/g, ""), "base64");
  else bytes = Buffer.from(body, "latin1");
  return {
    from: session.from,
    to: session.to,
    subject: decodeEncodedWords(headers.subject ?? ""),
    text: bytes.toString("utf8").replace(/\r\n/g, "\n"),
    headers,
    authUser: session.authUser,
    receivedAt: Date.now(),
  };
}

function decodeQuotedPrintable(body: string): Buffer {
  const joined = body.replace(/=\r\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(joined.charCodeAt(i) & 0xff);
  }
  return Buffer.from(bytes);
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) in a header. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_all, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : decodeQuotedPrintable(text.replace(/_/g, " ")).toString("utf8"),
    );
}
