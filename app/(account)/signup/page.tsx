import Link from "next/link";
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { safeRedirectPath } from "@/lib/http/redirect";
import { signUpAction } from "../actions";
import { AccountForm } from "../account-form";

export const metadata = { title: "Create your account · Sitewright" };

export default async function SignUpPage({
  searchParams,
}: {
  searchParams: Promise<{ deleted?: string; next?: string }>;
}) {
  const { deleted, next } = await searchParams;
  if (await currentSession()) redirect(safeRedirectPath(next));
  return (
    <main className="narrow">
      {deleted !== undefined ? (
        <p className="card ok" role="status">
          Your account and its data were deleted.
        </p>
      ) : null}
      <h1>Create your account</h1>
      <AccountForm
        action={signUpAction}
        submitLabel="Create account"
        hidden={next ? { next } : undefined}
        fields={[
          { name: "name", label: "Name (optional)", type: "text", autoComplete: "name" },
          { name: "email", label: "Email", type: "email", autoComplete: "email", required: true },
          {
            name: "password",
            label: "Password",
            type: "password",
            autoComplete: "new-password",
            required: true,
            hint: "At least 15 characters. A few unrelated words make a strong one.",
          },
        ]}
      />
      <p>
        Already have an account? <Link href="/login">Log in</Link>
      </p>
    </main>
  );
}
