"use client";
/**
 * A button that asks before it acts: a native modal <dialog> (focus moves into it and stays there, Escape
 * cancels), labelled by its title and described by its text, with the form that does the work inside.
 */
import { type ReactNode, useId, useRef } from "react";

export function ConfirmButton({
  label,
  accessibleLabel,
  title,
  children,
  confirmLabel,
  action,
  fields,
  danger = true,
  className = "link",
}: {
  label: string;
  /** A name that tells this button apart from the others like it ("Disconnect shop.example"). */
  accessibleLabel?: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  action: (form: FormData) => void | Promise<void>;
  fields?: Record<string, string>;
  danger?: boolean;
  className?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  return (
    <>
      <button
        type="button"
        className={className}
        aria-label={accessibleLabel}
        aria-haspopup="dialog"
        onClick={() => dialog.current?.showModal()}
      >
        {label}
      </button>
      <dialog ref={dialog} className="confirm" aria-labelledby={`${id}-title`} aria-describedby={`${id}-body`}>
        <form action={action}>
          <h2 id={`${id}-title`}>{title}</h2>
          <div id={`${id}-body`}>{children}</div>
          {Object.entries(fields ?? {}).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <div className="dialog-actions">
            <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" className={danger ? "danger" : undefined}>
              {confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
