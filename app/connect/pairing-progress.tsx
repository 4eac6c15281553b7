"use client";
/**
 * A pairing under way: the code to type into the plugin (polling until the plugin answers), then what the plugin
 * reported with the permissions it granted, then the confirmed connection with its checks.
 */
import { useEffect, useState, useTransition } from "react";
import Link from "next/link";
import { PermissionsSummary } from "@/app/permissions-summary";
import { describePermissions } from "@/lib/sites/permissions";
import type { PublicSite } from "@/lib/sites/site-view";
import { pageBuilderName } from "@/lib/vocabulary";
import { type ActionError, confirmSiteAction, type PreflightCheck } from "./actions";
import { CopyButton } from "./copy-button";
import { forgetPendingPairing, type ProgressPairing } from "./pairing-memory";
import { ErrorMessage, Preflight, useCountdown } from "./pairing-parts";

const POLL_MS = 2000;

type ProgressProps = {
  pairing: ProgressPairing;
  initialSite?: PublicSite;
  appUrl: string;
  onStartOver: () => void;
  /** Starts a new pairing for the same address in one click (replacing only this user's pending one). */
  newCode: (form: FormData) => void;
};

/** The site's state, polled until the plugin has redeemed the code (or the pairing ends). */
function usePolledSite(siteId: string, initial: PublicSite) {
  const [site, setSite] = useState<PublicSite>(initial);
  useEffect(() => {
    if (site.status !== "pending") return;
    let stopped = false;
    const poll = async () => {
      try {
        const res = await fetch(`/sites/${siteId}`, { cache: "no-store" });
        if (res.ok && !stopped) setSite((await res.json()).site);
      } catch {
        // a missed poll is retried on the next tick
      }
    };
    const timer = setInterval(poll, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [siteId, site.status]);
  return [site, setSite] as const;
}

/** The owner's "Confirm": the signed round trip, then the checks. */
function useConfirmation(setSite: (site: PublicSite) => void) {
  const [error, setError] = useState<ActionError>();
  const [checks, setChecks] = useState<PreflightCheck[]>();
  const [confirming, startConfirm] = useTransition();
  const confirm = (siteId: string) =>
    startConfirm(async () => {
      const result = await confirmSiteAction(siteId);
      if (result.ok) {
        setSite(result.site);
        setChecks(result.checks);
        setError(undefined);
      } else setError(result.error);
    });
  return { error, checks, confirming, confirm };
}

export function PairingProgress({ pairing, initialSite, appUrl, onStartOver, newCode }: ProgressProps) {
  const [site, setSite] = usePolledSite(
    pairing.siteId,
    initialSite ?? { id: pairing.siteId, url: pairing.url, status: "pending" },
  );
  const confirmation = useConfirmation(setSite);
  const remaining = useCountdown(pairing.expiresAt);
  const status = site.status === "pending" && (remaining <= 0 || !pairing.code) ? "expired" : site.status;
  // The code on screen is kept for a reload only while it can still be used.
  useEffect(() => {
    if (status !== "pending") forgetPendingPairing();
  }, [status]);

  if (status === "expired" || status === "locked" || status === "revoked") {
    return <PairingEnded status={status} url={pairing.url} onStartOver={onStartOver} newCode={newCode} />;
  }
  if (status === "pending") {
    return (
      <PairingCodeCard
        pairing={pairing}
        appUrl={appUrl}
        remaining={remaining}
        attemptsLeft={site.attemptsLeft}
        onStartOver={onStartOver}
      />
    );
  }
  if (status === "redeemed" && !confirmation.checks) {
    return <PairingRedeemed site={site} confirmation={confirmation} />;
  }
  return <PairingActive site={site} checks={confirmation.checks} />;
}

const ENDED = {
  locked: {
    title: "This pairing is locked",
    text: "The code was entered wrong five times, so it no longer works. Start again to get a new code.",
  },
  expired: { title: "The code expired", text: "Codes last five minutes. Start again to get a new one." },
  revoked: { title: "This pairing was cancelled", text: "Start again to connect this site." },
} as const;

function PairingEnded({
  status,
  url,
  onStartOver,
  newCode,
}: {
  status: keyof typeof ENDED;
  url: string;
  onStartOver: () => void;
  newCode: (form: FormData) => void;
}) {
  return (
    <div className="card" role="alert" data-testid="pairing-ended">
      <h2>{ENDED[status].title}</h2>
      <p>{ENDED[status].text}</p>
      <form action={newCode} className="actions-row">
        <input type="hidden" name="url" value={url} />
        <button type="submit">Get a new code</button>
        <button type="button" className="link" onClick={onStartOver}>
          Start over
        </button>
      </form>
    </div>
  );
}

function PairingCodeCard({
  pairing,
  appUrl,
  remaining,
  attemptsLeft,
  onStartOver,
}: {
  pairing: ProgressPairing;
  appUrl: string;
  remaining: number;
  attemptsLeft?: number;
  onStartOver: () => void;
}) {
  return (
    <div className="card" data-testid="pairing-code-card">
      <p>
        On <strong>{pairing.url}</strong>, open <em>Settings → Sitewright</em>, paste the Sitewright address and enter
        this code:
      </p>
      <dl className="pair-values">
        <dt>Sitewright address</dt>
        <dd className="copy-row">
          <code className="address">{appUrl}</code>
          <CopyButton value={appUrl} label="Copy address" context="the Sitewright address" />
        </dd>
        <dt>Pairing code</dt>
        <dd className="copy-row">
          <span className="code" data-testid="pairing-code">
            {pairing.displayCode}
          </span>
          <CopyButton value={pairing.code ?? ""} label="Copy code" context="the pairing code" />
        </dd>
      </dl>
      <p>
        <span className="muted" data-testid="countdown">
          Expires in {Math.floor(remaining / 60)}:{String(remaining % 60).padStart(2, "0")}
        </span>
      </p>
      {attemptsLeft !== undefined && attemptsLeft < 5 ? (
        <p className="warn">
          A wrong code was entered. {attemptsLeft} {attemptsLeft === 1 ? "attempt" : "attempts"} left.
        </p>
      ) : null}
      <p className="muted">
        The plugin&apos;s form has every permission ticked; you can change them there later without pairing again.
        Waiting for the plugin… this page moves on by itself.
      </p>
      <button type="button" className="link" onClick={onStartOver}>
        Start over
      </button>
    </div>
  );
}

function PairingRedeemed({
  site,
  confirmation,
}: {
  site: PublicSite;
  confirmation: ReturnType<typeof useConfirmation>;
}) {
  return (
    <div className="card" data-testid="pairing-redeemed">
      <h2>The plugin answered</h2>
      <table>
        <tbody>
          <tr>
            <th>Site</th>
            <td data-testid="site-name">{site.name ?? site.url}</td>
          </tr>
          <tr>
            <th>Address</th>
            <td>{site.url}</td>
          </tr>
          <tr>
            <th>Page builder</th>
            <td data-testid="page-builder">{pageBuilderName(site.pageBuilder)}</td>
          </tr>
        </tbody>
      </table>
      {site.scopes ? <PermissionsSummary permissions={describePermissions(site.scopes)} /> : null}
      <p>Confirm to check the connection from our side and finish.</p>
      {confirmation.error ? <ErrorMessage error={confirmation.error} /> : null}
      <button type="button" disabled={confirmation.confirming} onClick={() => confirmation.confirm(site.id)}>
        {confirmation.confirming ? "Checking…" : "Confirm"}
      </button>
    </div>
  );
}

function PairingActive({ site, checks }: { site: PublicSite; checks?: PreflightCheck[] }) {
  return (
    <div className="card" data-testid="pairing-active">
      <h2 className="ok">Connected: {site.name ?? site.url} is active</h2>
      {site.scopes ? <PermissionsSummary permissions={describePermissions(site.scopes)} /> : null}
      {checks?.length ? <Preflight checks={checks} /> : null}
      <p>
        <Link className="button" href={`/sites/${site.id}/chat`}>
          Start chatting about this site
        </Link>
      </p>
    </div>
  );
}
