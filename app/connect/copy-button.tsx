"use client";
/** Copies a value and says so, to sighted users on the button and to screen readers through a polite status. */
import { useState } from "react";

/**
 * `label` is what the button shows; `context` (hidden, read after it) says what is copied. The accessible name
 * starts with the visible words, so a person who says "Copy code" to voice control reaches it (WCAG 2.5.3).
 */
export function CopyButton({ value, label, context }: { value: string; label: string; context?: string }) {
  const [copied, setCopied] = useState<"yes" | "no">();
  return (
    <>
      <button
        type="button"
        className="secondary"
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
        {context ? <span className="visually-hidden"> ({context})</span> : null}
      </button>
      <span className="visually-hidden" role="status">
        {copied === "yes" ? "Copied." : copied === "no" ? "Could not copy; select the text and copy it." : ""}
      </span>
    </>
  );
}
