/**
 * One error type for the whole service. `code` is a stable snake_case string from the contract; `message` is
 * shown to the client; `cause` is only logged.
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    code: string,
    message: string,
    options: { status?: number; details?: Record<string, unknown>; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = options.status ?? statusFor(code);
    this.details = options.details;
    this.headers = options.headers;
  }

  toJSON() {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

const defaultStatus: Record<string, number> = {
  invalid_json: 400,
  invalid_input: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  invalid_code: 401,
  cross_site_request: 403,
  forbidden: 403,
  not_found: 404,
  no_pending_pairing: 404,
  method_not_allowed: 405,
  email_taken: 409,
  code_used: 409,
  not_redeemed: 409,
  site_not_active: 409,
  code_expired: 410,
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
};

export function statusFor(code: string): number {
  return defaultStatus[code] ?? 500;
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;
