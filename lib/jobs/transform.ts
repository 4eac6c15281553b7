/**
 * The change a job makes to one item, computed from the item's current state alone (pure): planning the same item
 * again after a restart gives the same fields, or none once the change is there — so a resumed job never writes an
 * item twice.
 */
import { asStoredMarkup, asStoredTitle } from "@/lib/wordpress/stored-text";
import { fieldTarget, type JobChange, type JobField } from "./spec";

/** One selected item as the runner read it: its post state, and its SEO state when the change needs it. */
export type JobSubject = {
  id: number;
  title: string;
  post: Record<string, unknown>;
  seo?: Record<string, unknown> | null;
};

/** What the model is told about an item it writes for (no site text beyond what names the item). */
export function subjectFacts(subject: JobSubject): Record<string, unknown> {
  const post = subject.post;
  return {
    id: subject.id,
    title: subject.title,
    ...(typeof post.excerpt === "string" && post.excerpt ? { caption: post.excerpt.slice(0, 300) } : {}),
    ...(typeof post.slug === "string" ? { slug: post.slug } : {}),
  };
}

const spell = (field: JobField, text: string) =>
  field === "title" || field === "seo_title"
    ? asStoredTitle(text)
    : field === "alt"
      ? text.trim()
      : asStoredMarkup(text);

/** The current value of a job field on the item. */
export function currentValue(field: JobField, subject: JobSubject): string {
  const target = fieldTarget(field);
  const state = target.ref === "seo" ? subject.seo : subject.post;
  const value = state?.[target.key];
  return typeof value === "string" ? value : "";
}

/**
 * The fields to write on the item's ref (`post:<id>` or `seo:<id>`), or null when the item already has what the
 * change would give. `written` is the model's text for a `write` change.
 */
export function plannedFields(
  change: JobChange,
  subject: JobSubject,
  written?: string,
): { ref: string; fields: Record<string, string> } | null {
  const target = fieldTarget(change.field);
  const ref = `${target.ref}:${subject.id}`;
  const current = currentValue(change.field, subject);
  let next: string;
  if (change.kind === "replace") {
    const find = change.find ?? "";
    if (find === "" || !current.includes(find)) return null;
    next = current.replaceAll(find, spell(change.field, change.replace ?? ""));
  } else if (change.kind === "set") {
    next = spell(change.field, (change.template ?? "").replaceAll("{title}", subject.title));
  } else {
    if (written === undefined || written.trim() === "") return null;
    next = spell(change.field, written);
  }
  return next === current ? null : { ref, fields: { [target.key]: next } };
}
