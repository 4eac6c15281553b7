"use client";

import { useActionState, useEffect, useState, useTransition } from "react";
import Link from "next/link";
import { confirmSiteAction, startPairingAction, type ActionError, type StartState } from "./actions";

type SiteView = {
  id: string;
  url: string;
  status: "pending" | "redeemed" | "active" | "expired" | "locked" | "revoked";
  name?: string;
  pageBuilder?: string;
  attemptsLeft?: number;
};
type Check = { id?: string; status: "pass" | "warn" | "fail"; message?: string; fix?: string };

const POLL_MS = 2000;

const builderNames: Record<string, string> = {
  gutenberg: "Block editor (Gutenberg)",
  elementor: "Elementor",
  divi: "Divi",
  "beaver-builder": "Beaver Builder",
  bricks: "Bricks",
  oxygen: "Oxygen",
  wpbakery: "WPBakery",
  classic: "Classic editor",
};

export function PairingWizard() {
  const [start, startAction, starting] = useActionState<StartState, FormData>(startPairingAction, { stage: "idle" });
  const [restart, setRestart] = useState(0);
  const pending = start.stage === "pending" && restart === 0 ? start : undefined;

  if (!pending) {
    const error = start.stage === "idle" ? start.error : undefined;
    return (
      <form
        action={(form) => {
          setRestart(0);
          startAction(form);
        }}
        className="card form"
      >
        <p>Enter your site&apos;s address. You will get a code to type into the Sitewright Connector plugin on the site.</p>
        {error ? <ErrorMessage error={error} /> : null}
        <label className="field">
          <span>Site address</span>
          <input name="url" type="text" inputMode="url" placeholder="https://example.com" defaultValue={start.stage === "idle" ? start.url : ""} required />
        </label>
        <button type="submit" disabled={starting}>
          {starting ? "Getting a code…" : "Get a pairing code"}
        </button>
      </form>
    );
  }
  return <PairingProgress key={pending.siteId} pairing={pending} onStartOver={() => setRestart((n) => n + 1)} />;
}

function PairingProgress({ pairing, onStartOver }: { pairing: Extract<StartState, { stage: "pending" }>; onStartOver: () => void }) {
  const [site, setSite] = useState<SiteView>({ id: pairing.siteId, url: pairing.url, status: "pending" });
  const [confirmError, setConfirmError] = useState<ActionError>();
  const [checks, setChecks] = useState<Check[]>();
  const [confirming, startConfirm] = useTransition();
  const remaining = useCountdown(pairing.expiresAt);

  // Poll the site's state until the plugin has redeemed the code (or the pairing ends).
  useEffect(() => {
    if (site.status !== "pending") return;
    let stopped = false;
    const poll = async () => {
      try {
        const res = await fetch(`/sites/${pairing.siteId}`, { cache: "no-store" });
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
  }, [pairing.siteId, site.status]);

  const status = site.status === "pending" && remaining <= 0 ? "expired" : site.status;

  if (status === "expired" || status === "locked" || status === "revoked") {
    return (
      <div className="card" role="alert" data-testid="pairing-ended">
        <h2>{status === "locked" ? "This pairing is locked" : status === "expired" ? "The code expired" : "This pairing was cancelled"}</h2>
        <p>
          {status === "locked"
            ? "The code was entered wrong five times, so it no longer works. Start again to get a new code."
            : status === "expired"
              ? "Codes last five minutes. Start again to get a new one."
              : "Start again to connect this site."}
        </p>
        <button onClick={onStartOver}>Start over</button>
      </div>
    );
  }

  if (status === "pending") {
    return (
      <div className="card" data-testid="pairing-code-card">
        <p>
          On <strong>{pairing.url}</strong>, open <em>Settings → Sitewright</em>, and enter this code:
        </p>
        <p className="code" data-testid="pairing-code">
          {pairing.displayCode}
        </p>
        <p>
          <button type="button" className="secondary" onClick={() => navigator.clipboard?.writeText(pairing.code)}>
            Copy code
          </button>{" "}
          <span className="muted" data-testid="countdown">
            Expires in {Math.floor(remaining / 60)}:{String(remaining % 60).padStart(2, "0")}
          </span>
        </p>
        {site.attemptsLeft !== undefined && site.attemptsLeft < 5 ? (
          <p className="warn">
            A wrong code was entered. {site.attemptsLeft} {site.attemptsLeft === 1 ? "attempt" : "attempts"} left.
          </p>
        ) : null}
        <p className="muted">Waiting for the plugin… this page moves on by itself.</p>
        <button type="button" className="link" onClick={onStartOver}>
          Start over
        </button>
      </div>
    );
  }

  if (status === "redeemed" && !checks) {
    return (
      <div className="card" data-testid="pairing-redeemed">
        <h2>The plugin answered</h2>
        <table>
          <tbody>
            <tr>
              <th>Site</th>
              <td data-testid="site-name">{site.name ?? pairing.url}</td>
            </tr>
            <tr>
              <th>Address</th>
              <td>{site.url}</td>
            </tr>
            <tr>
              <th>Page builder</th>
              <td data-testid="page-builder">{site.pageBuilder ? (builderNames[site.pageBuilder] ?? site.pageBuilder) : "Unknown"}</td>
            </tr>
          </tbody>
        </table>
        <p>Confirm to check the connection from our side and finish.</p>
        {confirmError ? <ErrorMessage error={confirmError} /> : null}
        <button
          disabled={confirming}
          onClick={() =>
            startConfirm(async () => {
              const result = await confirmSiteAction(site.id);
              if (result.ok) {
                setSite(result.site as SiteView);
                setChecks(((result.preflight as { checks?: Check[] }).checks ?? []) as Check[]);
                setConfirmError(undefined);
              } else setConfirmError(result.error);
            })
          }
        >
          {confirming ? "Checking…" : "Confirm"}
        </button>
      </div>
    );
  }

  return (
    <div className="card" data-testid="pairing-active">
      <h2 className="ok">Connected: {site.name ?? site.url} is active</h2>
      {checks?.length ? (
        <table data-testid="preflight">
          <thead>
            <tr>
              <th>Check</th>
              <th>Result</th>
              <th>What to do</th>
            </tr>
          </thead>
          <tbody>
            {checks.map((check, i) => (
              <tr key={check.id ?? i}>
                <td>{check.message ?? check.id}</td>
                <td className={check.status === "pass" ? "ok" : check.status === "warn" ? "warn" : "error"}>{check.status}</td>
                <td>{check.fix || "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <p>
        <Link className="button" href={`/sites/${site.id}/chat`}>
          Start chatting about this site
        </Link>
      </p>
    </div>
  );
}

function ErrorMessage({ error }: { error: ActionError }) {
  const reason = typeof error.details?.siteCode === "string" ? ` (${error.details.siteCode})` : "";
  return (
    <p role="alert" className="error" data-error-code={error.code}>
      {error.message}
      {reason}
    </p>
  );
}

function useCountdown(expiresAt: string) {
  const compute = () => Math.max(0, Math.round((new Date(expiresAt).getTime() - Date.now()) / 1000));
  const [remaining, setRemaining] = useState(compute);
  useEffect(() => {
    const timer = setInterval(() => setRemaining(compute()), 1000);
    return () => clearInterval(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [expiresAt]);
  return remaining;
}
