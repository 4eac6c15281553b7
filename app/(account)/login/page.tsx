import Link from "next/link";
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { safeRedirectPath } from "@/lib/http/redirect";
import { logInAction } from "../actions";
import { AccountForm } from "../account-form";

export const metadata = { title: "Log in · Sitewright" };

export default async function LogInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  if (await currentSession()) redirect(safeRedirectPath(next));
  return (
    <main className="narrow">
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
        New here? <Link href="/signup">Create an account</Link>
      </p>
    </main>
  );
}
