"use server";

import { redirect } from "next/navigation";
import { authenticate, loginSchema, registerAccount, signupSchema } from "@/lib/auth/accounts";
import { clearedSessionCookie, createSession, destroySession } from "@/lib/auth/session";
import { currentClientIp, currentSessionCookie, setSessionCookie } from "@/lib/auth/current";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";

export type FormState = { fieldErrors?: Record<string, string>; formError?: string; values?: Record<string, string> };

function fieldErrorsFrom(issues: { path: PropertyKey[]; message: string }[]) {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const key = String(issue.path[0] ?? "form");
    errors[key] ??= issue.message;
  }
  return errors;
}

function failure(error: unknown, values: Record<string, string>): FormState {
  if (isAppError(error)) {
    if (error.code === "email_taken") return { fieldErrors: { email: error.message }, values };
    if (error.status < 500) return { formError: error.message, values };
  }
  log.error("account form failed", { error });
  return { formError: "Something went wrong on our side. Try again in a moment.", values };
}

export async function signUpAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get("email") ?? ""), name: String(form.get("name") ?? "") };
  const parsed = signupSchema.safeParse({
    email: form.get("email") ?? "",
    password: form.get("password") ?? "",
    name: values.name || undefined,
  });
  if (!parsed.success) return { fieldErrors: fieldErrorsFrom(parsed.error.issues), values };
  try {
    const user = await registerAccount({ ...parsed.data, ip: await currentClientIp() });
    await setSessionCookie(await createSession(user.id));
  } catch (error) {
    return failure(error, values);
  }
  redirect("/");
}

export async function logInAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get("email") ?? "") };
  const parsed = loginSchema.safeParse({ email: form.get("email") ?? "", password: form.get("password") ?? "" });
  if (!parsed.success) return { fieldErrors: fieldErrorsFrom(parsed.error.issues), values };
  try {
    const user = await authenticate({ ...parsed.data, ip: await currentClientIp() });
    await destroySession(await currentSessionCookie());
    await setSessionCookie(await createSession(user.id));
  } catch (error) {
    return failure(error, values);
  }
  const next = String(form.get("next") ?? "");
  redirect(next.startsWith("/") && !next.startsWith("//") ? next : "/");
}

export async function logOutAction() {
  await destroySession(await currentSessionCookie());
  await setSessionCookie(clearedSessionCookie());
  redirect("/login");
}
