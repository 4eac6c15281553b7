import Link from "next/link";
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { safeRedirectPath } from "@/lib/http/redirect";
import { logInAction } from "../actions";
import { AccountForm } from "../account-form";

export const metadata = { title: "Log in · Sitewright" };

export default async function LogInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; reset?: string }>;
}) {
  const { next, reset } = await searchParams;
  if (await currentSession()) redirect(safeRedirectPath(next));
  return (
    <main className="narrow">
      {reset !== undefined ? (
        <p className="card ok" role="status">
          Your password was changed and every session signed out. Log in with the new password.
        </p>
      ) : null}
      <h1>Log in</h1>
      <AccountForm
        action={logInAction}
        submitLabel="Log in"
        hidden={next ? { next } : undefined}
        fields={[
          { name: "email", label: "Email", type: "email", autoComplete: "email", required: true },
          { name: "password", label: "Password", type: "password", autoComplete: "current-password", required: true },
        ]}
      />
      <p>
        <Link href="/forgot-password">Forgot your password?</Link>
      </p>
      <p>
        New here? <Link href="/signup">Create an account</Link>
      </p>
    </main>
  );
}
