/**
 * Outgoing mail through SMTP (nodemailer), configured by `SMTP_URL` and `MAIL_FROM`. Without `SMTP_URL` nothing is
 * sent: in development and tests the message is written to the app's log (so a newcomer can still follow a reset
 * link from `npm run dev`); in production an operator error is logged instead, without the message (it holds a
 * link that works as a password). docs/operations.md, "Mail".
 */
import type { createTransport } from "nodemailer";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";

export type MailMessage = {
  to: string;
  subject: string;
  text: string;
  /** What kind of mail, for the logs (never the text or the address in production). */
  kind: string;
  /** The link the message is about: a field of its own in the log line when there is no mail server (development). */
  link?: string;
};

export type MailOutcome = "sent" | "logged" | "not_configured";

type Transport = ReturnType<typeof createTransport>;
/** One transport per SMTP URL for the whole process (Next.js loads this module once per bundle). */
const transports = processState("mail.transports", () => new Map<string, Transport>());
/** Sends still under way, so tests can wait for them. */
const pending = processState("mail.pending", () => new Set<Promise<unknown>>());

/** nodemailer loads with the first mail sent, not with every route that may send one (issue 39: memory). */
async function transportFor(url: string): Promise<Transport> {
  let transport = transports.get(url);
  if (!transport) {
    const { createTransport } = await import("nodemailer");
    // Bounded waits: a mail server that hangs must not hold sockets for nodemailer's default ten minutes.
    transport = createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    transports.set(url, transport);
  }
  return transport;
}

export function mailFrom(): string {
  const { MAIL_FROM, APP_URL } = env();
  return MAIL_FROM ?? `Sitewright <no-reply@${new URL(APP_URL).hostname}>`;
}

/** Sends one message, or logs it when no mail server is configured. Throws when the server refuses or is down. */
export async function sendMail(message: MailMessage): Promise<MailOutcome> {
  const { SMTP_URL, NODE_ENV } = env();
  if (!SMTP_URL) {
    if (NODE_ENV === "production") {
      log.error("mail is not configured: set SMTP_URL (docs/operations.md, Mail); this message was not sent", {
        kind: message.kind,
      });
      return "not_configured";
    }
    log.warn("mail not sent (SMTP_URL is not set); here it is instead", {
      kind: message.kind,
      to: message.to,
      subject: message.subject,
      ...(message.link ? { link: message.link } : {}),
      text: message.text,
    });
    return "logged";
  }
  await (await transportFor(SMTP_URL)).sendMail({
    from: mailFrom(),
    to: message.to,
    subject: message.subject,
    text: message.text,
  });
  log.info("mail sent", { kind: message.kind });
  return "sent";
}

/**
 * Sends after the answer has gone: the caller's response time does not depend on the mail server (nor on whether
 * there was anything to send). A failure is logged for the operator; the person can ask again.
 */
export function inBackground(what: string, work: () => Promise<unknown>): void {
  const task = work()
    .catch((error) => log.error(`${what} failed`, { error }))
    .finally(() => pending.delete(task));
  pending.add(task);
}

/** Resolves once every background send started so far has finished (tests). */
export async function backgroundMailSettled(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}

/** Closes the pooled connections and forgets the transports (tests, shutdown). */
export function closeMailTransports() {
  for (const transport of transports.values()) transport.close();
  transports.clear();
}
