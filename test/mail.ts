/** For a test file or describe block: a local SMTP sink as the app's mail server (SMTP_URL), closed afterwards. */
import { afterAll, afterEach, beforeAll } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { backgroundMailSettled, closeMailTransports } from "@/lib/mail/mailer";
import { startSmtpSink, type SinkOptions, type SmtpSink } from "./smtp-sink";

export const TEST_MAIL_FROM = "Sitewright tests <no-reply@sitewright.test>";

export function useMailSink(options: SinkOptions = {}): () => SmtpSink {
  let sink: SmtpSink | undefined;
  beforeAll(async () => {
    sink = await startSmtpSink(options);
    resetEnvForTests({ SMTP_URL: sink.url, MAIL_FROM: TEST_MAIL_FROM });
  });
  // A test's mail is delivered (or has failed) before the next test starts, so none lands in another's check.
  afterEach(() => backgroundMailSettled());
  afterAll(async () => {
    await backgroundMailSettled();
    resetEnvForTests({ SMTP_URL: undefined, MAIL_FROM: undefined });
    closeMailTransports();
    await sink?.close();
  });
  return () => {
    if (!sink) throw new Error("useMailSink(): the sink is not started yet");
    return sink;
  };
}
