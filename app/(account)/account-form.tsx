"use client";

import { useActionState, useId } from "react";
import type { FormState } from "./actions";

type Field = {
  name: string;
  label: string;
  type: string;
  autoComplete: string;
  required?: boolean;
  hint?: string;
  /** Shown at first (the account page fills in the current name and email). */
  defaultValue?: string;
};

export function AccountForm({
  action,
  fields,
  submitLabel,
  hidden,
  title,
  danger = false,
  testId,
}: {
  action: (state: FormState, form: FormData) => Promise<FormState>;
  fields: Field[];
  submitLabel: string;
  hidden?: Record<string, string>;
  /** A heading inside the card, which also names the form for assistive technology. */
  title?: string;
  danger?: boolean;
  testId?: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  const titleId = useId();
  return (
    <form
      action={formAction}
      className="card form"
      noValidate
      aria-labelledby={title ? titleId : undefined}
      data-testid={testId}
    >
      {title ? <h2 id={titleId}>{title}</h2> : null}
      {state.notice ? (
        <p role="status" className="ok">
          {state.notice}
        </p>
      ) : null}
      {state.formError ? (
        <p role="alert" className="error">
          {state.formError}
        </p>
      ) : null}
      {Object.entries(hidden ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {fields.map((field) => {
        const error = state.fieldErrors?.[field.name];
        return (
          <label key={field.name} className="field">
            <span>{field.label}</span>
            <input
              name={field.name}
              type={field.type}
              autoComplete={field.autoComplete}
              required={field.required}
              defaultValue={field.type === "password" ? undefined : (state.values?.[field.name] ?? field.defaultValue)}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${field.name}-error` : undefined}
            />
            {field.hint && !error ? <small className="hint">{field.hint}</small> : null}
            {error ? (
              <small id={`${field.name}-error`} className="error" data-field-error={field.name}>
                {error}
              </small>
            ) : null}
          </label>
        );
      })}
      <button type="submit" disabled={pending} className={danger ? "danger" : undefined}>
        {pending ? "Working…" : submitLabel}
      </button>
    </form>
  );
}
