"use server";

import { revalidatePath } from "next/cache";
import { currentSession } from "@/lib/auth/current";
import { clientErrorFor } from "@/lib/http/client-error";
import { log } from "@/lib/log";
import { formatPairingCode, pairSchema, startPairing } from "@/lib/sites/pairing";
import type { PublicSite } from "@/lib/sites/site-view";
import { confirmSite, disconnectSite } from "@/lib/sites/sites";

export type ActionError = { code: string; message: string; details?: Record<string, unknown> };
export type StartState =
  | { stage: "idle"; url?: string; error?: ActionError }
  | { stage: "pending"; siteId: string; url: string; code: string; displayCode: string; expiresAt: string };

/** The same mapping as the JSON routes (lib/http/client-error.ts): same code, same sentence, same details. */
function asActionError(error: unknown, action: string): ActionError {
  const { code, message, details } = clientErrorFor(error, { action });
  return { code, message, ...(details ? { details } : {}) };
}

const loggedOut = (): ActionError => ({
  code: "unauthenticated",
  message: "Your session ended. Log in again to continue.",
});

export async function startPairingAction(_state: StartState, form: FormData): Promise<StartState> {
  const url = String(form.get("url") ?? "");
  const session = await currentSession();
  if (!session) return { stage: "idle", url, error: loggedOut() };
  const parsed = pairSchema.safeParse({ url });
  if (!parsed.success)
    return { stage: "idle", url, error: { code: "invalid_input", message: "Enter your site's address." } };
  try {
    const pairing = await startPairing({ userId: session.userId, url: parsed.data.url });
    return {
      stage: "pending",
      siteId: pairing.site.id,
      url: pairing.site.url,
      code: pairing.code,
      displayCode: formatPairingCode(pairing.code),
      expiresAt: pairing.expiresAt,
    };
  } catch (error) {
    return { stage: "idle", url, error: asActionError(error, "start pairing") };
  }
}

export type PreflightCheck = { id?: string; status: "pass" | "warn" | "fail"; message?: string; fix?: string };

export type ConfirmResult =
  | { ok: true; site: PublicSite; checks: PreflightCheck[] }
  | { ok: false; error: ActionError };

/** The plugin's preflight checks, kept only when they have the shape the wizard shows (the site is not trusted). */
function checksOf(preflight: Record<string, unknown>): PreflightCheck[] {
  const checks = Array.isArray(preflight.checks) ? preflight.checks : [];
  return checks.flatMap((check: unknown): PreflightCheck[] => {
    if (!check || typeof check !== "object") return [];
    const { id, status, message, fix } = check as Record<string, unknown>;
    if (status !== "pass" && status !== "warn" && status !== "fail") return [];
    const text = (value: unknown) => (typeof value === "string" ? value.slice(0, 500) : undefined);
    return [{ id: text(id), status, message: text(message), fix: text(fix) }];
  });
}

export async function confirmSiteAction(siteId: string): Promise<ConfirmResult> {
  const session = await currentSession();
  if (!session) return { ok: false, error: loggedOut() };
  try {
    const result = await confirmSite({ userId: session.userId, siteId });
    revalidatePath("/");
    return { ok: true, site: result.site, checks: checksOf(result.preflight) };
  } catch (error) {
    return { ok: false, error: asActionError(error, "confirm site") };
  }
}

export async function disconnectSiteAction(form: FormData) {
  const session = await currentSession();
  if (!session) return;
  try {
    await disconnectSite({ userId: session.userId, siteId: String(form.get("siteId") ?? "") });
  } catch (error) {
    log.warn("disconnect failed", { error });
  }
  revalidatePath("/");
}
