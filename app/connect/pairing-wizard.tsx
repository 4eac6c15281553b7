"use client";

import { useActionState, useId, useState } from "react";
import type { PublicSite } from "@/lib/sites/site-view";
import { startPairingAction, type StartState } from "./actions";
import { CopyButton } from "./copy-button";
import { useRememberedPairing } from "./pairing-memory";
import { ErrorMessage } from "./pairing-parts";
import { PairingProgress } from "./pairing-progress";

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

type Begin = (form: FormData) => void;

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
        <CopyButton value={appUrl} label="Copy address" context="the Sitewright address" />
      </p>
    </section>
  );
}

/** Pairings left half-way: continue one the plugin answered, or get a new code for one still waiting. */
function Unfinished({
  waiting,
  starting,
  begin,
  resume,
}: {
  waiting: PublicSite[];
  starting: boolean;
  begin: Begin;
  resume: (site: PublicSite) => void;
}) {
  return (
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
                  : "· a code was shown in another tab or browser; for your safety it is not shown here"}
              </span>
            </span>
            {site.status === "redeemed" ? (
              <button type="button" onClick={() => resume(site)}>
                Continue
              </button>
            ) : (
              <form action={begin}>
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
  );
}

function CodeForm({
  start,
  starting,
  begin,
  initialUrl,
}: {
  start: StartState;
  starting: boolean;
  begin: Begin;
  initialUrl?: string;
}) {
  const errorId = useId();
  const error = start.stage === "idle" ? start.error : undefined;
  return (
    <form action={begin} className="card form step" aria-labelledby="code-title">
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
  );
}

/** What the wizard shows: a pairing under way (new, kept across a reload, or resumed), else the start page. */
function useWizard({ unfinished, resume }: Pick<WizardProps, "unfinished" | "resume">) {
  const [start, startAction, starting] = useActionState<StartState, FormData>(startPairingAction, { stage: "idle" });
  const [restart, setRestart] = useState(0);
  const [resumed, setResumed] = useState(resume?.status === "redeemed" ? resume : undefined);
  const pending = start.stage === "pending" && restart === 0 ? start : undefined;
  const { remembered, forget } = useRememberedPairing(pending, unfinished);
  const begin: Begin = (form) => {
    setResumed(undefined);
    forget();
    setRestart(0);
    startAction(form);
  };
  const startOver = () => {
    setResumed(undefined);
    forget();
    setRestart((n) => n + 1);
  };
  return {
    start,
    starting,
    pending: pending ?? (resumed ? undefined : remembered),
    resumed,
    setResumed,
    begin,
    startOver,
  };
}

export function PairingWizard({ appUrl, initialUrl, unfinished, resume }: WizardProps) {
  const wizard = useWizard({ unfinished, resume });
  const { pending, resumed } = wizard;
  if (pending || resumed) {
    const pairing = pending ?? { siteId: resumed!.id, url: resumed!.url, expiresAt: resumed!.expiresAt };
    return (
      <PairingProgress
        key={pairing.siteId}
        pairing={pairing}
        initialSite={pending ? undefined : resumed}
        appUrl={appUrl}
        onStartOver={wizard.startOver}
        newCode={wizard.begin}
      />
    );
  }
  const waiting = unfinished.filter((site) => site.status === "pending" || site.status === "redeemed");
  return (
    <>
      <InstallStep appUrl={appUrl} />
      {waiting.length ? (
        <Unfinished waiting={waiting} starting={wizard.starting} begin={wizard.begin} resume={wizard.setResumed} />
      ) : null}
      <CodeForm start={wizard.start} starting={wizard.starting} begin={wizard.begin} initialUrl={initialUrl} />
    </>
  );
}
