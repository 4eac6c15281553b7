/** The text of every mail the service sends: plain text, one link, what to do if it was not you. */
import type { MailMessage } from "./mailer";

const signature = "\n\n— Sitewright";

export function passwordResetMail({ to, link }: { to: string; link: string }): MailMessage {
  return {
    kind: "password_reset",
    to,
    link,
    subject: "Reset your Sitewright password",
    text: `Someone (hopefully you) asked to reset the password of your Sitewright account.

Set a new password here (the link works once, for 30 minutes):
${link}

If you did not ask for this, ignore this message: your password stays as it is.${signature}`,
  };
}

export function passwordChangedMail({ to, appUrl }: { to: string; appUrl: string }): MailMessage {
  return {
    kind: "password_changed",
    to,
    subject: "Your Sitewright password was changed",
    text: `The password of your Sitewright account was just changed with a reset link, and every session was signed out.

If that was you, there is nothing to do. If it was not, reset your password again at once:
${appUrl}/forgot-password${signature}`,
  };
}

export function verifyEmailMail({ to, link }: { to: string; link: string }): MailMessage {
  return {
    kind: "email_verification",
    to,
    link,
    subject: "Confirm your email address for Sitewright",
    text: `Confirm that this address belongs to your Sitewright account (the link works once, for 24 hours):
${link}

If you did not create an account or change its email, ignore this message.${signature}`,
  };
}
