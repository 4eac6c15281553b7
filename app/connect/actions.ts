"use server";

import { revalidatePath } from "next/cache";
import { currentSession } from "@/lib/auth/current";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { formatPairingCode, pairSchema, startPairing, type PublicSite } from "@/lib/sites/pairing";
import { confirmSite, disconnectSite } from "@/lib/sites/sites";

export type ActionError = { code: string; message: string; details?: Record<string, unknown> };
export type StartState =
  | { stage: "idle"; url?: string; error?: ActionError }
  | { stage: "pending"; siteId: string; url: string; code: string; displayCode: string; expiresAt: string };

function asActionError(error: unknown): ActionError {
  if (isAppError(error) && error.status < 500) return { code: error.code, message: error.message, details: error.details };
  if (isAppError(error) && (error.code === "site_unreachable" || error.code === "site_rejected")) {
    return { code: error.code, message: error.message, details: error.details };
  }
  log.error("pairing action failed", { error });
  return { code: "internal_error", message: "Something went wrong on our side. Try again in a moment." };
}

const loggedOut = (): ActionError => ({ code: "unauthenticated", message: "Your session ended. Log in again to continue." });

export async function startPairingAction(_state: StartState, form: FormData): Promise<StartState> {
  const url = String(form.get("url") ?? "");
  const session = await currentSession();
  if (!session) return { stage: "idle", url, error: loggedOut() };
  const parsed = pairSchema.safeParse({ url });
  if (!parsed.success) return { stage: "idle", url, error: { code: "invalid_input", message: "Enter your site's address." } };
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
    return { stage: "idle", url, error: asActionError(error) };
  }
}

export type ConfirmResult = { ok: true; site: PublicSite; preflight: Record<string, unknown> } | { ok: false; error: ActionError };

export async function confirmSiteAction(siteId: string): Promise<ConfirmResult> {
  const session = await currentSession();
  if (!session) return { ok: false, error: loggedOut() };
  try {
    const result = await confirmSite({ userId: session.userId, siteId });
    revalidatePath("/");
    return { ok: true, ...result };
  } catch (error) {
    return { ok: false, error: asActionError(error) };
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
