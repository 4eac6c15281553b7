import Link from "next/link";
import { resetPasswordAction } from "../actions";
import { AccountForm } from "../account-form";

// The token is in this page's address: never send it to anyone as a Referer.
export const metadata = { title: "Set a new password · Sitewright", referrer: "no-referrer" };

export default async function ResetPasswordPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <main className="narrow">
      <h1>Set a new password</h1>
      {token ? (
        <AccountForm
          action={resetPasswordAction}
          submitLabel="Set the new password"
          testId="reset-password-form"
          hidden={{ token }}
          fields={[
            {
              name: "password",
              label: "New password",
              type: "password",
              autoComplete: "new-password",
              required: true,
              hint: "At least 15 characters. Every session of your account is signed out.",
            },
          ]}
        />
      ) : (
        <p role="alert" className="card error">
          This link is incomplete: open the whole link from the email, or ask for a new one.
        </p>
      )}
      <p>
        Link expired or already used? <Link href="/forgot-password">Ask for a new one</Link>
      </p>
    </main>
  );
}
