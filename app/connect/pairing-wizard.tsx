"use client";

import { useActionState, useEffect, useId, useState, useTransition } from "react";
import Link from "next/link";
import { pageBuilderName } from "@/lib/vocabulary";
import type { PublicSite } from "@/lib/sites/site-view";
import {
  confirmSiteAction,
  startPairingAction,
  type ActionError,
  type PreflightCheck,
  type StartState,
} from "./actions";
import { CopyButton } from "./copy-button";

/** Where the plugin is downloaded from (served by the app itself). */
export const PLUGIN_ZIP_PATH = "/plugin/sitewright-connector.zip";

export type WizardProps = {
  /** The Sitewright address the plugin's form asks for (`APP_URL`). */
  appUrl: string;
  /** The address to prefill (from "Connect again"). */
  initialUrl?: string;
  /** The user's unfinished pairings, newest first: the wizard survives a reload through them. */
  unfinished: PublicSite[];
  /** A pairing to continue at once (`/connect?site=ID`). */
  resume?: PublicSite;
};

const POLL_MS = 2000;

function InstallStep({ appUrl }: { appUrl: string }) {
  return (
    <section className="card step" aria-labelledby="install-title">
      <h2 id="install-title">1. Install the plugin on your site</h2>
      <p>
        <a className="button" href={PLUGIN_ZIP_PATH} download data-testid="plugin-zip">
          Download the Sitewright Connector plugin (.zip)
        </a>
      </p>
      <p className="muted">
        In WordPress: <em>Plugins → Add New → Upload Plugin</em>, choose the file, then <em>Activate</em>. Skip this if
        it is installed already.
      </p>
      <p>
        The plugin asks for the <strong>Sitewright address</strong>. Paste this:
      </p>
      <p className="copy-row">
        <code className="address" data-testid="app-url">
          {appUrl}
        </code>
        <CopyButton value={appUrl} label="Copy address" accessibleLabel="Copy the Sitewright address" />
      </p>
    </section>
  );
}

export function PairingWizard({ appUrl, initialUrl, unfinished, resume }: WizardProps) {
  const [start, startAction, starting] = useActionState<StartState, FormData>(startPairingAction, { stage: "idle" });
  const [restart, setRestart] = useState(0);
  const [resumed, setResumed] = useState(resume?.status === "redeemed" ? resume : undefined);
  const pending = start.stage === "pending" && restart === 0 ? start : undefined;
  const errorId = useId();

  if (resumed && !pending) {
    return (
      <PairingProgress
        key={resumed.id}
        pairing={{ siteId: resumed.id, url: resumed.url, expiresAt: resumed.expiresAt }}
        initialSite={resumed}
        appUrl={appUrl}
        onStartOver={() => setResumed(undefined)}
        newCode={(form) => {
          setResumed(undefined);
          setRestart(0);
          startAction(form);
        }}
      />
    );
  }

  if (!pending) {
    const error = start.stage === "idle" ? start.error : undefined;
    const waiting = unfinished.filter((site) => site.status === "pending" || site.status === "redeemed");
    return (
      <>
        <InstallStep appUrl={appUrl} />
        {waiting.length ? (
          <section className="card step" aria-labelledby="continue-title" data-testid="unfinished">
            <h2 id="continue-title">Continue where you left off</h2>
            <ul className="plain">
              {waiting.map((site) => (
                <li key={site.id} className="continue-row">
                  <span>
                    <strong>{site.url}</strong>{" "}
                    <span className="muted">
                      {site.status === "redeemed"
                        ? "· the plugin answered; confirm to finish"
                        : "· a code was shown; for your safety it cannot be shown again"}
                    </span>
                  </span>
                  {site.status === "redeemed" ? (
                    <button type="button" onClick={() => setResumed(site)}>
                      Continue
                    </button>
                  ) : (
                    <form
                      action={(form) => {
                        setRestart(0);
                        startAction(form);
                      }}
                    >
                      <input type="hidden" name="url" value={site.url} />
                      <button type="submit" disabled={starting} aria-label={`Get a new code for ${site.url}`}>
                        Get a new code
                      </button>
                    </form>
                  )}
                </li>
              ))}
            </ul>
            <p className="muted">A new code replaces your earlier one for that site; nobody else&apos;s.</p>
          </section>
        ) : null}
        <form
          action={(form) => {
            setRestart(0);
            startAction(form);
          }}
          className="card form step"
          aria-labelledby="code-title"
        >
          <h2 id="code-title">2. Get a pairing code</h2>
          <p>Enter your site&apos;s address. You will get a code to type into the plugin on the site.</p>
          <label className="field">
            <span>Site address</span>
            <input
              name="url"
              type="text"
              inputMode="url"
              autoComplete="url"
              placeholder="https://example.com"
              defaultValue={start.stage === "idle" ? (start.url ?? initialUrl) : initialUrl}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? errorId : undefined}
              required
            />
          </label>
          {error ? <ErrorMessage error={error} id={errorId} /> : null}
          <button type="submit" disabled={starting}>
            {starting ? "Getting a code…" : "Get a pairing code"}
          </button>
        </form>
      </>
    );
  }
  return (
    <PairingProgress
      key={pending.siteId}
      pairing={pending}
      appUrl={appUrl}
      onStartOver={() => setRestart((n) => n + 1)}
      newCode={(form) => {
        setRestart(0);
        startAction(form);
      }}
    />
  );
}

type ProgressPairing = { siteId: string; url: string; expiresAt?: string; code?: string; displayCode?: string };

function PairingProgress({
  pairing,
  initialSite,
  appUrl,
  onStartOver,
  newCode,
}: {
  pairing: ProgressPairing;
  initialSite?: PublicSite;
  appUrl: string;
  onStartOver: () => void;
  /** Starts a new pairing for the same address in one click (replacing only this user's pending one). */
  newCode: (form: FormData) => void;
}) {
  const [site, setSite] = useState<PublicSite>(
    initialSite ?? { id: pairing.siteId, url: pairing.url, status: "pending" },
  );
  const [confirmError, setConfirmError] = useState<ActionError>();
  const [checks, setChecks] = useState<PreflightCheck[]>();
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

  const status = site.status === "pending" && (remaining <= 0 || !pairing.code) ? "expired" : site.status;

  if (status === "expired" || status === "locked" || status === "revoked") {
    return (
      <div className="card" role="alert" data-testid="pairing-ended">
        <h2>
          {status === "locked"
            ? "This pairing is locked"
            : status === "expired"
              ? "The code expired"
              : "This pairing was cancelled"}
        </h2>
        <p>
          {status === "locked"
            ? "The code was entered wrong five times, so it no longer works. Start again to get a new code."
            : status === "expired"
              ? "Codes last five minutes. Start again to get a new one."
              : "Start again to connect this site."}
        </p>
        <form action={newCode} className="actions-row">
          <input type="hidden" name="url" value={pairing.url} />
          <button type="submit">Get a new code</button>
          <button type="button" className="link" onClick={onStartOver}>
            Start over
          </button>
        </form>
      </div>
    );
  }

  if (status === "pending") {
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
            <CopyButton value={appUrl} label="Copy address" accessibleLabel="Copy the Sitewright address" />
          </dd>
          <dt>Pairing code</dt>
          <dd className="copy-row">
            <span className="code" data-testid="pairing-code">
              {pairing.displayCode}
            </span>
            <CopyButton value={pairing.code ?? ""} label="Copy code" accessibleLabel="Copy the pairing code" />
          </dd>
        </dl>
        <p>
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
              <td data-testid="page-builder">{pageBuilderName(site.pageBuilder)}</td>
            </tr>
          </tbody>
        </table>
        <p>Confirm to check the connection from our side and finish.</p>
        {confirmError ? <ErrorMessage error={confirmError} /> : null}
        <button
          type="button"
          disabled={confirming}
          onClick={() =>
            startConfirm(async () => {
              const result = await confirmSiteAction(site.id);
              if (result.ok) {
                setSite(result.site);
                setChecks(result.checks);
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
      {checks?.length ? <Preflight checks={checks} /> : null}
      <p>
        <Link className="button" href={`/sites/${site.id}/chat`}>
          Start chatting about this site
        </Link>
      </p>
    </div>
  );
}

const RESULT_WORDS = { pass: "Passed", warn: "Warning", fail: "Failed" } as const;

function CheckTable({ checks }: { checks: PreflightCheck[] }) {
  return (
    <div className="scrollX">
      <table>
        <thead>
          <tr>
            <th scope="col">Check</th>
            <th scope="col">Result</th>
            <th scope="col">What to do</th>
          </tr>
        </thead>
        <tbody>
          {checks.map((check, i) => (
            <tr key={check.id ?? i}>
              <td>{check.message ?? check.id}</td>
              <td className={check.status === "pass" ? "ok" : check.status === "warn" ? "warn" : "error"}>
                {RESULT_WORDS[check.status]}
              </td>
              <td>{check.fix || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** All well: one line, details on request. Otherwise only what needs the owner's attention, passes folded away. */
function Preflight({ checks }: { checks: PreflightCheck[] }) {
  const problems = checks.filter((check) => check.status !== "pass");
  const passed = checks.filter((check) => check.status === "pass");
  return (
    <div data-testid="preflight" data-problems={problems.length}>
      {problems.length === 0 ? (
        <p className="ok">All {checks.length} checks passed.</p>
      ) : (
        <>
          <p className="warn">
            {problems.length} {problems.length === 1 ? "check needs" : "checks need"} your attention:
          </p>
          <CheckTable checks={problems} />
        </>
      )}
      {passed.length ? (
        <details>
          <summary>
            {problems.length === 0 ? "Show the checks" : `Show the ${passed.length} checks that passed`}
          </summary>
          <CheckTable checks={passed} />
        </details>
      ) : null}
    </div>
  );
}

function ErrorMessage({ error, id }: { error: ActionError; id?: string }) {
  const reason = typeof error.details?.siteCode === "string" ? ` (${error.details.siteCode})` : "";
  return (
    <p role="alert" className="error" id={id} data-error-code={error.code}>
      {error.message}
      {reason}
    </p>
  );
}

function useCountdown(expiresAt: string | undefined) {
  const [remaining, setRemaining] = useState(() => secondsUntil(expiresAt));
  useEffect(() => {
    const timer = setInterval(() => setRemaining(secondsUntil(expiresAt)), 1000);
    return () => clearInterval(timer);
  }, [expiresAt]);
  return remaining;
}

function secondsUntil(at: string | undefined): number {
  if (!at) return 0;
  return Math.max(0, Math.round((new Date(at).getTime() - Date.now()) / 1000));
}
