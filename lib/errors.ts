/**
 * One error type for the whole service, one closed list of codes and one code → status table. `message` is shown
 * to the client; `cause` is only logged. Adding a code is one line in `ERROR_STATUS`.
 *
 * Next.js loads this module once per bundle (instrumentation, route handlers, pages and their server actions), so
 * an `AppError` made in one bundle is not an `instanceof` the class of another: errors are recognised by a brand
 * (`Symbol.for`, shared by every copy of this module in the process), never by `instanceof`.
 */
import { z } from "zod";

/** The contract's codes and the status each one always answers with (docs/api.md, "Conventions"). */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_input: 400,
  invalid_token: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  invalid_code: 401,
  cross_site_request: 403,
  wrong_password: 403,
  forbidden: 403,
  second_person_required: 403,
  not_found: 404,
  operation_not_allowed: 403,
  no_pending_pairing: 404,
  email_taken: 409,
  code_used: 409,
  not_redeemed: 409,
  site_not_active: 409,
  pairing_required: 409,
  approval_not_pending: 409,
  drifted: 409,
  not_applicable: 409,
  superseded: 409,
  code_expired: 410,
  token_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  insecure_url: 422,
  forbidden_host: 422,
  rate_limited: 429,
  locked: 429,
  capacity_reached: 429,
  internal_error: 500,
  site_unreachable: 502,
  site_rejected: 502,
  store_unavailable: 503,
  agent_unavailable: 503,
  sandbox_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ErrorCode = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]);

export const statusFor = (code: ErrorCode): number => ERROR_STATUS[code];

const BRAND: unique symbol = Symbol.for("sitewright.app-error");

export type AppErrorOptions = {
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Response headers the contract names for this answer (e.g. `Retry-After`). */
  headers?: Record<string, string>;
};

export class AppError extends Error {
  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }

  get status(): number {
    return statusFor(this.code);
  }

  toJSON() {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** True for an AppError made by any bundle's copy of this module. */
export const isAppError = (error: unknown): error is AppError =>
  typeof error === "object" && error !== null && (error as { [BRAND]?: unknown })[BRAND] === true;

/** The error and its causes, outermost first, at most `maxDepth` deep (cause chains can be cyclic). */
export function* causeChain(error: unknown, maxDepth = 8): Generator<unknown> {
  let current = error;
  for (let depth = 0; current !== undefined && current !== null && depth < maxDepth; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The first error in the cause chain that matches, or undefined. */
export function findCause(error: unknown, matches: (error: unknown) => boolean): unknown {
  for (const link of causeChain(error)) if (matches(link)) return link;
  return undefined;
}

/** The first string `code` property along the cause chain (Node's `ECONNREFUSED`, PostgreSQL's `23505`...). */
export function systemCode(error: unknown): string | undefined {
  const found = findCause(error, (link) => typeof (link as { code?: unknown }).code === "string");
  return found === undefined ? undefined : (found as { code: string }).code;
}

/** What any client (JSON route or form) is told about an error: the contract's shape, nothing internal. */
export type ClientError = {
  status: number;
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** True when the cause must be logged as ours (a 5xx we did not expect). */
  unexpected: boolean;
};

const INTERNAL: Omit<ClientError, "unexpected"> = {
  status: 500,
  code: "internal_error",
  message: "Something went wrong on our side. Try again; if it keeps happening, contact support.",
};

/**
 * The one mapper from a thrown value to what a client sees, shared by the route wrapper and server actions, so a
 * form and the JSON route cannot disagree. `classify` lets the caller recognise infrastructure failures (the store
 * being down) without this module importing them.
 */
export function toClientError(error: unknown, classify?: (error: unknown) => AppError | undefined): ClientError {
  const known = isAppError(error) ? error : classify?.(error);
  if (!known) return { ...INTERNAL, unexpected: true };
  return {
    status: known.status,
    code: known.code,
    message: known.code === "internal_error" ? INTERNAL.message : known.message,
    ...(known.details ? { details: known.details } : {}),
    ...(known.headers ? { headers: known.headers } : {}),
    unexpected: known.status >= 500,
  };
}
