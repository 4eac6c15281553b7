/**
 * The one route wrapper: cross-site check → authenticate → read and validate the body → act → map errors.
 * Handlers stay a few lines; no route parses JSON, checks Origin or formats an error by hand.
 */
import type { z } from "zod";
import { AppError, isAppError } from "@/lib/errors";
import { env } from "@/lib/env";
import { isStoreUnavailable } from "@/lib/db";
import { log } from "@/lib/log";
import { readCookie, readSession, serializeCookie, sessionCookieName, type AuthenticatedSession, type CookieSpec } from "@/lib/auth/session";
import { readJsonBody, MAX_BODY_BYTES } from "./body";
import { assertSameOrigin } from "./origin";
import { clientIp } from "./client-ip";

type Auth = "session" | "optional" | "none";

type RouteOptions<B extends z.ZodType | undefined, Q extends z.ZodType | undefined, A extends Auth> = {
  auth: A;
  body?: B;
  query?: Q;
  /** Cross-site check for state-changing methods. Off only for routes the plugin calls (no cookie). */
  csrf?: boolean;
  maxBodyBytes?: number;
};

export type RouteContext<B, Q, A extends Auth> = {
  request: Request;
  body: B;
  query: Q;
  params: Record<string, string>;
  session: A extends "session" ? AuthenticatedSession : AuthenticatedSession | undefined;
  ip: string;
  /** The raw session cookie, for logout. */
  sessionCookie: string | undefined;
  setCookie(cookie: CookieSpec): void;
};

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;
type NextContext = { params?: Promise<Record<string, string | string[]>> };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function route<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined, A extends Auth = Auth>(
  options: RouteOptions<B, Q, A>,
  handler: (ctx: RouteContext<Infer<B>, Infer<Q>, A>) => Promise<Response> | Response,
) {
  return async (request: Request, nextContext?: NextContext): Promise<Response> => {
    const cookies: CookieSpec[] = [];
    try {
      const method = request.method.toUpperCase();
      if (options.csrf !== false && !SAFE_METHODS.has(method)) assertSameOrigin(request, env().APP_URL);

      const sessionCookie = readCookie(request.headers.get("cookie"), sessionCookieName());
      const session = options.auth === "none" ? undefined : await readSession(sessionCookie);
      if (options.auth === "session" && !session) {
        throw new AppError("unauthenticated", "Log in to continue.", { status: 401 });
      }

      let body: unknown = undefined;
      if (options.body) {
        const raw = await readJsonBody(request, options.maxBodyBytes ?? MAX_BODY_BYTES);
        body = validate(options.body, raw);
      }
      let query: unknown = undefined;
      if (options.query) {
        query = validate(options.query, Object.fromEntries(new URL(request.url).searchParams));
      }
      const rawParams = (await nextContext?.params) ?? {};
      const params = Object.fromEntries(Object.entries(rawParams).map(([k, v]) => [k, Array.isArray(v) ? v.join("/") : v]));

      const response = await handler({
        request,
        body: body as Infer<B>,
        query: query as Infer<Q>,
        params,
        session: session as RouteContext<Infer<B>, Infer<Q>, A>["session"],
        ip: clientIp(request),
        sessionCookie,
        setCookie: (cookie) => cookies.push(cookie),
      });
      return withCookies(response, cookies);
    } catch (error) {
      return withCookies(errorResponse(error, request), cookies);
    }
  };
}

function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new AppError("invalid_input", "Some fields are missing or not valid.", {
    status: 400,
    details: { issues: result.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })) },
  });
}

function withCookies(response: Response, cookies: CookieSpec[]): Response {
  for (const cookie of cookies) response.headers.append("Set-Cookie", serializeCookie(cookie));
  return response;
}

export function errorResponse(error: unknown, request?: Request): Response {
  if (isAppError(error)) {
    if (error.status >= 500) log.error("request failed", { code: error.code, path: request && new URL(request.url).pathname, error });
    return json(error.status, error.toJSON(), error.headers);
  }
  if (isStoreUnavailable(error)) {
    log.error("store unavailable", { path: request && new URL(request.url).pathname, error });
    return json(503, { error: { code: "store_unavailable", message: "The service is temporarily unavailable. Try again in a moment." } }, { "Retry-After": "5" });
  }
  log.error("unexpected error", { path: request && new URL(request.url).pathname, error });
  return json(500, { error: { code: "internal_error", message: "Something went wrong on our side. Try again; if it keeps happening, contact support." } });
}

export function json(status: number, data: unknown, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(data), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

export function noContent(): Response {
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}
