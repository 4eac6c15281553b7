"use client";
/**
 * Whether this component has hydrated: false in the server's HTML and while React hydrates it, true after.
 * A button that acts through a click handler does nothing before then (the click lands on the server's HTML and is
 * lost), so such buttons are disabled until hydrated: the owner sees a button that answers, or one that says it
 * does not yet (found under load: the review page's Approve, clicked before hydration, did nothing).
 */
import { useSyncExternalStore } from "react";

const never = () => () => {};

export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
