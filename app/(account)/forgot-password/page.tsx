import Link from "next/link";
import { forgotPasswordAction } from "../actions";
import { AccountForm } from "../account-form";

export const metadata = { title: "Forgot your password? · Sitewright" };

export default function ForgotPasswordPage() {
  return (
    <main className="narrow">
      <h1>Forgot your password?</h1>
      <p>Enter the email address of your account. We will send you a link to set a new password.</p>
      <AccountForm
        action={forgotPasswordAction}
        submitLabel="Send the link"
        testId="forgot-password-form"
        fields={[{ name: "email", label: "Email", type: "email", autoComplete: "email", required: true }]}
      />
      <p>
        Remembered it? <Link href="/login">Log in</Link>
      </p>
    </main>
  );
}
