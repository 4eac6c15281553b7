/**
 * The one route wrapper: cross-site check → authenticate → read and validate the body → act → map errors.
 * Handlers stay a few lines; no route parses JSON, checks Origin or formats an error by hand.
 */
import type { z } from "zod";
import { AppError } from "@/lib/errors";
import { env } from "@/lib/env";
import {
  readCookie,
  readSession,
  serializeCookie,
  sessionCookieName,
  type AuthenticatedSession,
  type CookieSpec,
} from "@/lib/auth/session";
import { readJsonBody, MAX_BODY_BYTES } from "./body";
import { assertSameOrigin } from "./origin";
import { clientIp } from "./client-ip";
import { clientErrorFor } from "./client-error";

type Auth = "session" | "optional" | "none";

type RouteOptions<B extends z.ZodType | undefined, Q extends z.ZodType | undefined, A extends Auth> = {
  auth: A;
  body?: B;
  query?: Q;
  /** Cross-site check for state-changing methods. Off only for routes the plugin calls (no cookie). */
  csrf?: boolean;
  maxBodyBytes?: number;
  /** A POST sent with no body at all (what the route took before it had one) reads as `{}`. */
  optionalBody?: boolean;
  /** Path parameters' schema, for a route whose parameters are not ids; failing it is `404 not_found`. */
  params?: z.ZodType<Record<string, string>>;
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

export function route<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  A extends Auth = Auth,
>(options: RouteOptions<B, Q, A>, handler: (ctx: RouteContext<Infer<B>, Infer<Q>, A>) => Promise<Response> | Response) {
  return async (request: Request, nextContext?: NextContext): Promise<Response> => {
    const cookies: CookieSpec[] = [];
    try {
      const method = request.method.toUpperCase();
      if (options.csrf !== false && !SAFE_METHODS.has(method)) assertSameOrigin(request, env().APP_URL);

      const sessionCookie = readCookie(request.headers.get("cookie"), sessionCookieName());
      const session = options.auth === "none" ? undefined : await readSession(sessionCookie);
      if (options.auth === "session" && !session) {
        throw new AppError("unauthenticated", "Log in to continue.");
      }
      const params = await pathParams(nextContext, options.params);

      let body: unknown;
      if (options.body) {
        const absent = options.optionalBody && request.body === null && !request.headers.get("content-type");
        const raw = absent ? {} : await readJsonBody(request, options.maxBodyBytes ?? MAX_BODY_BYTES);
        body = validate(options.body, raw);
      }
      let query: unknown;
      if (options.query) {
        query = validate(options.query, Object.fromEntries(new URL(request.url).searchParams));
      }
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
    details: { issues: result.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })) },
  });
}

function withCookies(response: Response, cookies: CookieSpec[]): Response {
  for (const cookie of cookies) response.headers.append("Set-Cookie", serializeCookie(cookie));
  return response;
}

export function errorResponse(error: unknown, request?: Request): Response {
  const answer = clientErrorFor(error, { path: request && new URL(request.url).pathname });
  const { code, message, details } = answer;
  return json(answer.status, { error: { code, message, ...(details ? { details } : {}) } }, answer.headers);
}

/** Our ids are UUIDs; a path parameter named `id` or `…Id` that is not one cannot name anything of ours. */
const OUR_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isIdName = (name: string) => name === "id" || /[a-z]Id$/.test(name);
/** Text a path segment may hold: well-formed Unicode, no NUL or other control characters. */
function isPlainText(value: string): boolean {
  if (!value.isWellFormed()) return false;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x20 || unit === 0x7f) return false;
  }
  return true;
}

const notFound = () => new AppError("not_found", "There is nothing at this address.");

/**
 * Path parameters, checked before anything uses them: an id that is not one of ours, a segment with NUL, control
 * characters or broken UTF-8 (`%00`, `%C0%AF`, `%FF`), or a value the route's `params` schema refuses is
 * `404 not_found`, never a database error.
 */
async function pathParams(
  nextContext: NextContext | undefined,
  schema: z.ZodType<Record<string, string>> | undefined,
): Promise<Record<string, string>> {
  const raw = (await nextContext?.params) ?? {};
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    const segments = Array.isArray(value) ? value : [value];
    if (!segments.every(isAcceptableSegment)) throw notFound();
    const joined = segments.join("/");
    if (!schema && isIdName(name) && !OUR_ID.test(joined)) throw notFound();
    params[name] = joined;
  }
  if (!schema) return params;
  const result = schema.safeParse(params);
  if (!result.success) throw notFound();
  return result.data;
}

/**
 * Next.js hands a segment over decoded when it can and raw when it cannot (`%FF`, `%C0%AF`): a raw escape that does
 * not decode to UTF-8 is refused here, as are NUL and control characters once decoded.
 */
function isAcceptableSegment(segment: string): boolean {
  if (!isPlainText(segment)) return false;
  if (!/%[0-9a-fA-F]{2}/.test(segment)) return true;
  try {
    return isPlainText(decodeURIComponent(segment));
  } catch {
    return false;
  }
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
