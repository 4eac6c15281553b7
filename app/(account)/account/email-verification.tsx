"use client";

import { useActionState } from "react";
import { resendVerificationAction, type FormState } from "../actions";

/** Whether the account's address is confirmed, and a way to get a new link while it is not. */
export function EmailVerification({ email, verified }: { email: string; verified: boolean }) {
  const [state, formAction, pending] = useActionState<FormState>(resendVerificationAction, {});
  return (
    <section className="card" aria-labelledby="verification-title" data-testid="email-verification">
      <h2 id="verification-title">Email address</h2>
      <p>
        {email}: {verified ? <strong className="ok">verified</strong> : <strong className="warn">not verified</strong>}
      </p>
      {verified ? null : (
        <form action={formAction}>
          <p className="muted">
            Open the link we sent to this address to confirm it. Didn't get it? Check your spam folder, or ask for a new
            one.
          </p>
          {state.notice ? (
            <p role="status" className="ok">
              {state.notice}
            </p>
          ) : null}
          {state.formError ? (
            <p role="alert" className="error">
              {state.formError}
            </p>
          ) : null}
          <button type="submit" className="secondary" disabled={pending}>
            {pending ? "Sending…" : "Resend the link"}
          </button>
        </form>
      )}
    </section>
  );
}
