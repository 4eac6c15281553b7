/** A file whose structure is not what its kind requires (cut short, lengths that run past the end...). */
export class BrokenMediaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BrokenMediaError";
  }
}

/** Recognised by name, not `instanceof` (Next.js loads modules once per bundle: STYLE.md). */
export const isBrokenMediaError = (error: unknown): error is BrokenMediaError =>
  error instanceof Error && error.name === "BrokenMediaError";

export function need(condition: boolean, what: string): asserts condition {
  if (!condition) throw new BrokenMediaError(what);
}
