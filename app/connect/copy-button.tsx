"use client";
/** Copies a value and says so, to sighted users on the button and to screen readers through a polite status. */
import { useState } from "react";

export function CopyButton({
  value,
  label,
  accessibleLabel,
}: {
  value: string;
  label: string;
  accessibleLabel?: string;
}) {
  const [copied, setCopied] = useState<"yes" | "no">();
  return (
    <>
      <button
        type="button"
        className="secondary"
        aria-label={accessibleLabel}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value);
            setCopied("yes");
          } catch {
            setCopied("no");
          }
          setTimeout(() => setCopied(undefined), 2500);
        }}
      >
        {copied === "yes" ? "Copied" : label}
      </button>
      <span className="visually-hidden" role="status">
        {copied === "yes" ? "Copied." : copied === "no" ? "Could not copy; select the text and copy it." : ""}
      </span>
    </>
  );
}
