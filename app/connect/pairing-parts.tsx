"use client";
/** Small parts of the pairing wizard: the preflight results, an action's error, the code's countdown. */
import { useEffect, useState } from "react";
import type { ActionError, PreflightCheck } from "./actions";

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
export function Preflight({ checks }: { checks: PreflightCheck[] }) {
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

export function ErrorMessage({ error, id }: { error: ActionError; id?: string }) {
  const reason = typeof error.details?.siteCode === "string" ? ` (${error.details.siteCode})` : "";
  return (
    <p role="alert" className="error" id={id} data-error-code={error.code}>
      {error.message}
      {reason}
    </p>
  );
}

export function useCountdown(expiresAt: string | undefined) {
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
