import Link from "next/link";
import { currentSession } from "@/lib/auth/current";
import { verifyEmailAction } from "../actions";
import { AccountForm } from "../account-form";

// The token is in this page's address: never send it to anyone as a Referer.
export const metadata = { title: "Confirm your email address · Sitewright", referrer: "no-referrer" };

/**
 * Opening the link does not verify by itself: mail scanners open links too, so the address counts as confirmed
 * only after this button (docs/api.md, "Password reset and email verification").
 */
export default async function VerifyEmailPage({
  searchParams,
}: {
  searchParams: Promise<{ token?: string; verified?: string }>;
}) {
  const { token, verified } = await searchParams;
  const signedIn = Boolean(await currentSession());
  if (verified !== undefined) {
    return (
      <main className="narrow">
        <h1>Email address confirmed</h1>
        <p role="status" className="card ok">
          Your email address is verified.
        </p>
        <p>{signedIn ? <Link href="/account">Back to your account</Link> : <Link href="/login">Log in</Link>}</p>
      </main>
    );
  }
  return (
    <main className="narrow">
      <h1>Confirm your email address</h1>
      {token ? (
        <AccountForm
          action={verifyEmailAction}
          submitLabel="Confirm my email address"
          testId="verify-email-form"
          hidden={{ token }}
          fields={[]}
        />
      ) : (
        <p role="alert" className="card error">
          This link is incomplete: open the whole link from the email.
        </p>
      )}
      <p>
        Link expired? {signedIn ? "Ask for a new one on " : "Log in and ask for a new one on "}
        <Link href="/account">your account page</Link>.
      </p>
    </main>
  );
}
