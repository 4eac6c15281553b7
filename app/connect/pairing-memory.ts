"use client";
/**
 * The code on screen survives a reload of the wizard in the same tab: the pending pairing (with its code) is kept
 * in this tab's sessionStorage until it is redeemed, ends or is started over. The service never stores the code
 * in clear (only its HMAC), so this copy is the only way to show it again; it dies with the tab, and the code
 * itself with its five minutes.
 */
import { useCallback, useEffect, useState } from "react";
import type { PublicSite } from "@/lib/sites/site-view";

export type ProgressPairing = { siteId: string; url: string; expiresAt?: string; code?: string; displayCode?: string };

const KEY = "sitewright:pending-pairing";

function read(): ProgressPairing | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as ProgressPairing | null;
    return value && typeof value.siteId === "string" && typeof value.code === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Forgets the kept pairing (it was redeemed, it ended, or the owner started over). */
export function forgetPendingPairing() {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // storage unavailable: nothing was kept
  }
}

/**
 * Keeps `pending` while it is shown, and after a reload gives back the kept pairing when the server still has it
 * pending and its code has not expired.
 */
export function useRememberedPairing(pending: ProgressPairing | undefined, unfinished: PublicSite[]) {
  const [remembered, setRemembered] = useState<ProgressPairing>();
  useEffect(() => {
    if (!pending) return;
    try {
      sessionStorage.setItem(KEY, JSON.stringify(pending));
    } catch {
      // storage unavailable (private mode): a reload shows the start page, as before
    }
  }, [pending]);
  useEffect(() => {
    const kept = read();
    if (!kept) return;
    const live = unfinished.some((site) => site.id === kept.siteId && site.status === "pending");
    if (live && kept.expiresAt && new Date(kept.expiresAt).getTime() > Date.now()) setRemembered(kept);
    else forgetPendingPairing();
  }, [unfinished]);
  const forget = useCallback(() => {
    forgetPendingPairing();
    setRemembered(undefined);
  }, []);
  return { remembered, forget };
}
