/** Calls a route handler the way Next.js does, and keeps cookies like a browser would. */
type Handler = (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

export type CallOptions = {
  method?: string;
  body?: unknown;
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  cookie?: string;
  params?: Record<string, string | string[]>;
  path?: string;
};

export async function call(handler: Handler, options: CallOptions = {}) {
  const headers = new Headers(options.headers);
  let body: BodyInit | undefined;
  if (options.rawBody !== undefined) body = options.rawBody as BodyInit;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  if (options.cookie) headers.set("cookie", options.cookie);
  const request = new Request(`http://localhost:3000${options.path ?? "/"}`, {
    method: options.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
  });
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const setCookie = response.headers.getSetCookie();
  const cookie = setCookie.map((c) => c.split(";")[0]).join("; ") || undefined;
  return { status: response.status, json, text, headers: response.headers, setCookie, cookie };
}
