/** The text of every mail the service sends: plain text, one link, what to do if it was not you. */
import type { MailMessage } from "./mailer";

const signature = "\n\n— Sitewright";

export function passwordResetMail({ to, link }: { to: string; link: string }): MailMessage {
  return {
    kind: "password_reset",
    label: "Password reset mail",
    to,
    link,
    subject: "Reset your Sitewright password",
    text: `Someone (hopefully you) asked to reset the password of your Sitewright account.

Set a new password here (the link works once, for 30 minutes):
${link}

If you did not ask for this, ignore this message: your password stays as it is.${signature}`,
  };
}

/** An application's self-given name, on one line and clipped: it is the application's text, not ours. */
const applicationName = (name: string) =>
  name
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ")
    .trim()
    .slice(0, 100);

export function passwordChangedMail(input: {
  to: string;
  appUrl: string;
  /** A reset link, or the account page's form. */
  how: "reset" | "change";
  /** The applications (MCP clients) that were connected and were disconnected with it. */
  applications: Array<{ clientName: string; connectedAt: Date }>;
}): MailMessage {
  const how =
    input.how === "reset"
      ? "was just changed with a reset link, and every session was signed out"
      : "was just changed on the account page, and every other session was signed out";
  const applications =
    input.applications.length === 0
      ? "No application was connected to your account."
      : `These applications were connected to your account and have been disconnected (each is named as it named itself):
${input.applications.map((a) => `- "${applicationName(a.clientName)}", connected ${a.connectedAt.toISOString().slice(0, 10)}`).join("\n")}
Connect again the ones you use, from the application itself.`;
  return {
    kind: "password_changed",
    label: "Password changed notice",
    to: input.to,
    subject: "Your Sitewright password was changed",
    text: `The password of your Sitewright account ${how}.

${applications}

If that was you, there is nothing else to do. If it was not, reset your password again at once:
${input.appUrl}/forgot-password${signature}`,
  };
}

export function verifyEmailMail({ to, link }: { to: string; link: string }): MailMessage {
  return {
    kind: "email_verification",
    label: "Email address confirmation mail",
    to,
    link,
    subject: "Confirm your email address for Sitewright",
    text: `Confirm that this address belongs to your Sitewright account (the link works once, for 24 hours):
${link}

If you did not create an account or change its email, ignore this message.${signature}`,
  };
}

/** An owner's invitation to a site: who invited, as which role, and the one link (single use, 7 days). */
export function siteInvitationMail(input: {
  to: string;
  link: string;
  inviter: string;
  site: string;
  role: string;
}): MailMessage {
  const oneLine = (text: string) =>
    text
      .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ")
      .trim()
      .slice(0, 100);
  return {
    kind: "site_invitation",
    label: "Site invitation mail",
    to: input.to,
    link: input.link,
    subject: "You are invited to a site on Sitewright",
    text: `${oneLine(input.inviter)} invites you to work on ${oneLine(input.site)} in Sitewright, as ${input.role}.

Accept here (sign up or log in with this address; the link works once, for 7 days):
${input.link}

If you do not know this person, ignore this message.${signature}`,
  };
}
