"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { authenticate, loginSchema, registerAccount, signupSchema } from "@/lib/auth/accounts";
import {
  changePassword,
  changePasswordSchema,
  deleteAccount,
  deleteAccountSchema,
  profileSchema,
  signOutEverywhere,
  updateProfile,
} from "@/lib/auth/account-settings";
import { resendVerification, verifyEmail, verifyEmailSchema } from "@/lib/auth/email-verification";
import {
  forgotPasswordSchema,
  requestPasswordReset,
  resetPassword,
  resetPasswordSchema,
} from "@/lib/auth/password-reset";
import { clearedSessionCookie, createSession, destroySession } from "@/lib/auth/session";
import { currentSession, currentSessionCookie, setSessionCookie } from "@/lib/auth/current";
import { currentClientIp } from "@/lib/http/client-ip";
import { clientErrorFor } from "@/lib/http/client-error";
import { safeRedirectPath } from "@/lib/http/redirect";

export type FormState = {
  fieldErrors?: Record<string, string>;
  formError?: string;
  values?: Record<string, string>;
  /** Said once the change is made ("Password changed."). */
  notice?: string;
};

function fieldErrorsFrom(issues: { path: PropertyKey[]; message: string }[]) {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const key = String(issue.path[0] ?? "form");
    errors[key] ??= issue.message;
  }
  return errors;
}

/** The same mapping as the JSON routes (lib/http/client-error.ts): same code, same sentence. */
function failure(
  error: unknown,
  values: Record<string, string>,
  action: string,
  passwordField = "password",
  /** Codes that name the password field here (login's `invalid_credentials` is about the pair, not a field). */
  passwordCodes: string[] = ["wrong_password"],
): FormState {
  const { code, message } = clientErrorFor(error, { action });
  if (code === "email_taken") return { fieldErrors: { email: message }, values };
  if (passwordCodes.includes(code)) return { fieldErrors: { [passwordField]: message }, values };
  return { formError: message, values };
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
    return failure(error, values, "sign up");
  }
  // An invitation's link sends people here first: they come back to it (safeRedirectPath keeps it on our origin).
  redirect(safeRedirectPath(form.get("next")));
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
    return failure(error, values, "log in");
  }
  redirect(safeRedirectPath(form.get("next")));
}

export async function logOutAction() {
  await destroySession(await currentSessionCookie());
  await setSessionCookie(clearedSessionCookie());
  redirect("/login");
}

const sessionEnded: FormState = { formError: "Your session ended. Log in again to continue." };

export async function updateProfileAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get("email") ?? ""), name: String(form.get("name") ?? "") };
  const session = await currentSession();
  if (!session) return sessionEnded;
  const parsed = profileSchema.safeParse({
    email: values.email,
    name: values.name || undefined,
    currentPassword: form.get("currentPassword") || undefined,
  });
  if (!parsed.success) return { fieldErrors: fieldErrorsFrom(parsed.error.issues), values };
  try {
    await updateProfile({ userId: session.userId, ...parsed.data, ip: await currentClientIp() });
  } catch (error) {
    // A missing or wrong current password (only asked for a new email) is said beside its field.
    return failure(error, values, "update your profile", "currentPassword", ["invalid_credentials", "invalid_input"]);
  }
  revalidatePath("/", "layout");
  return { values, notice: "Saved." };
}

export async function changePasswordAction(_state: FormState, form: FormData): Promise<FormState> {
  const session = await currentSession();
  if (!session) return sessionEnded;
  const parsed = changePasswordSchema.safeParse({
    currentPassword: form.get("currentPassword") ?? "",
    newPassword: form.get("newPassword") ?? "",
  });
  if (!parsed.success) return { fieldErrors: fieldErrorsFrom(parsed.error.issues) };
  try {
    await changePassword({
      userId: session.userId,
      ...parsed.data,
      keepSessionIdHash: session.idHash,
      ip: await currentClientIp(),
    });
  } catch (error) {
    return failure(error, {}, "change your password", "currentPassword");
  }
  return {
    notice: "Password changed. Every other session was signed out and every connected application disconnected.",
  };
}

export async function signOutEverywhereAction() {
  const session = await currentSession();
  if (session) await signOutEverywhere({ userId: session.userId });
  await setSessionCookie(clearedSessionCookie());
  redirect("/login");
}

export async function deleteAccountAction(_state: FormState, form: FormData): Promise<FormState> {
  const session = await currentSession();
  if (!session) return sessionEnded;
  const parsed = deleteAccountSchema.safeParse({ password: form.get("password") ?? "" });
  if (!parsed.success) return { fieldErrors: fieldErrorsFrom(parsed.error.issues) };
  try {
    await deleteAccount({ userId: session.userId, password: parsed.data.password, ip: await currentClientIp() });
  } catch (error) {
    return failure(error, {}, "delete your account");
  }
  await setSessionCookie(clearedSessionCookie());
  redirect("/signup?deleted=1");
}

export async function forgotPasswordAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get("email") ?? "") };
  const parsed = forgotPasswordSchema.safeParse(values);
  if (!parsed.success) return { fieldErrors: fieldErrorsFrom(parsed.error.issues), values };
  try {
    await requestPasswordReset({ email: parsed.data.email, ip: await currentClientIp() });
  } catch (error) {
    return failure(error, values, "ask for a password reset");
  }
  return {
    values,
    notice: "If an account exists for that address, we sent a link to it. The link works for 30 minutes.",
  };
}

export async function resetPasswordAction(_state: FormState, form: FormData): Promise<FormState> {
  const parsed = resetPasswordSchema.safeParse({
    token: String(form.get("token") ?? ""),
    password: form.get("password") ?? "",
  });
  if (!parsed.success) {
    const errors = fieldErrorsFrom(parsed.error.issues);
    return errors.token ? { formError: errors.token } : { fieldErrors: errors };
  }
  try {
    await resetPassword({ ...parsed.data, ip: await currentClientIp() });
  } catch (error) {
    return failure(error, {}, "reset your password");
  }
  await setSessionCookie(clearedSessionCookie());
  redirect("/login?reset=1");
}

export async function verifyEmailAction(_state: FormState, form: FormData): Promise<FormState> {
  const parsed = verifyEmailSchema.safeParse({ token: String(form.get("token") ?? "") });
  if (!parsed.success) return { formError: parsed.error.issues[0]?.message };
  try {
    await verifyEmail({ token: parsed.data.token, ip: await currentClientIp() });
  } catch (error) {
    return failure(error, {}, "verify your email");
  }
  revalidatePath("/account");
  redirect("/verify-email?verified=1");
}

export async function resendVerificationAction(_state: FormState): Promise<FormState> {
  const session = await currentSession();
  if (!session) return sessionEnded;
  try {
    const outcome = await resendVerification({ userId: session.userId, ip: await currentClientIp() });
    if (outcome === "already_verified") return { notice: "Your email address is already verified." };
  } catch (error) {
    return failure(error, {}, "send a new verification link");
  }
  return { notice: `We sent a new link to ${session.user.email}. It works for 24 hours.` };
}
