"use client";
/**
 * The same sandbox's other rehearsals that wait for Apply: each turn of a conversation makes its own change set, and
 * the owner may review them one by one (links) or apply them all together in one Apply (`changeSetIds`).
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useHydrated } from "@/app/use-hydrated";

type Props = { siteId: string; changeSetId: string; others: Array<{ id: string; createdAt: string }> };

export function AlsoWaiting({ siteId, changeSetId, others }: Props) {
  const router = useRouter();
  const [working, setBusy] = useState(false);
  // Before hydration a click would be lost: the button waits (use-hydrated.ts).
  const hydrated = useHydrated();
  const busy = working || !hydrated;
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  // After the Apply, the page's refresh finds no other rehearsal waiting: the outcome stays on screen all the same.
  if (others.length === 0 && !message) return null;
  const applyAll = async () => {
    setBusy(true);
    const response = await fetch(`/sites/${siteId}/changes/${changeSetId}/apply`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ changeSetIds: others.map((set) => set.id) }),
    }).catch(() => undefined);
    const body = (await response?.json().catch(() => ({}))) as { error?: { message?: string } } | undefined;
    setMessage(
      response?.ok
        ? { ok: true, text: `Applied all ${others.length + 1} rehearsals of this sandbox to your live site.` }
        : { ok: false, text: body?.error?.message ?? "That did not work. Try again." },
    );
    setBusy(false);
    if (response?.ok) router.refresh();
  };
  return (
    <section aria-label="Other rehearsals in this sandbox" data-testid="also-waiting">
      <h2>Also waiting in this sandbox</h2>
      {others.length > 0 ? (
        <>
          <ul>
            {others.map((set, index) => (
              <li key={set.id}>
                <Link href={`/sites/${siteId}/review/${set.id}`}>
                  Earlier rehearsal {index + 1} ({new Date(set.createdAt).toUTCString()})
                </Link>
              </li>
            ))}
          </ul>
          <button type="button" disabled={busy} onClick={applyAll}>
            Apply all {others.length + 1} together
          </button>
        </>
      ) : null}
      {message ? (
        <p
          role={message.ok ? "status" : "alert"}
          className={message.ok ? "ok" : "error"}
          data-testid="also-waiting-outcome"
        >
          {message.text}
        </p>
      ) : null}
    </section>
  );
}
