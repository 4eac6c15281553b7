/**
 * The one mapper from anything thrown to what a client is told, for route handlers and server actions alike (a
 * form and the JSON route cannot disagree). Unexpected failures are logged here with where they happened.
 */
import { isStoreUnavailable } from "@/lib/db";
import { AppError, type ClientError, toClientError } from "@/lib/errors";
import { log } from "@/lib/log";

/** Infrastructure failures we recognise: the store being down is a 503 the client can retry. */
function classifyInfrastructure(error: unknown): AppError | undefined {
  if (!isStoreUnavailable(error)) return undefined;
  return new AppError("store_unavailable", "The service is temporarily unavailable. Try again in a moment.", {
    headers: { "Retry-After": "5" },
    cause: error,
  });
}

export function clientErrorFor(error: unknown, where: { path?: string; action?: string }): ClientError {
  const answer = toClientError(error, classifyInfrastructure);
  if (answer.unexpected) {
    log.error(answer.code === "internal_error" ? "unexpected error" : "request failed", {
      code: answer.code,
      ...where,
      error,
    });
  }
  return answer;
}
