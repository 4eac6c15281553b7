import Link from "next/link";
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { signUpAction } from "../actions";
import { AccountForm } from "../account-form";

export const metadata = { title: "Create your account · Sitewright" };

export default async function SignUpPage() {
  if (await currentSession()) redirect("/");
  return (
    <main className="narrow">
      <h1>Create your account</h1>
      <AccountForm
        action={signUpAction}
        submitLabel="Create account"
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
