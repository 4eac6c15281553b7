/**
 * Sends one exact signed request, for tampering tests: what is signed can differ from what is sent, and any
 * header can be dropped or forged. Production code uses createSiteClient instead.
 */
import { siteRequestUrl } from "../client";
import { safeFetch, type SafeFetchOptions } from "../safe-fetch";
import { sign } from "../signing";

export type SignedParts = {
  method: string;
  route: string;
  query: Array<[string, string]>;
  body: string;
  timestamp: string;
};

export type RawSignedRequest = Partial<SignedParts> & {
  restUrl: string;
  secret: string;
  /** null sends no Authorization header. */
  token: string | null;
  /** What the signature covers, when it should differ from what is sent; also `secret` to sign with another key. */
  signAs?: Partial<SignedParts> & { secret?: string };
  /** Sent instead of the computed signature. */
  signature?: string;
  headers?: Record<string, string>;
  fetch?: Pick<SafeFetchOptions, "ca" | "allowlist" | "resolver" | "timeoutMs">;
};

export type RawSignedResponse = { status: number; code?: string; data: unknown; signature: string; timestamp: string };

export async function sendSignedRequest(request: RawSignedRequest): Promise<RawSignedResponse> {
  const sent: SignedParts = {
    method: request.method ?? "GET",
    route: request.route ?? "/sitewright/v1/info",
    query: request.query ?? [],
    body: request.body ?? "",
    timestamp: request.timestamp ?? String(Date.now()),
  };
  const signed = { ...sent, ...request.signAs };
  const signature = request.signature ?? sign(request.signAs?.secret ?? request.secret, signed);
  const headers: Record<string, string> = {
    accept: "application/json",
    "x-sitewright-timestamp": sent.timestamp,
    "x-sitewright-signature": signature,
    ...(sent.body ? { "content-type": "application/json" } : {}),
    ...(request.token === null ? {} : { authorization: `Bearer ${request.token}` }),
    ...request.headers,
  };
  const response = await safeFetch(siteRequestUrl(request.restUrl, sent.route, sent.query), {
    ...request.fetch,
    method: sent.method,
    headers,
    body: sent.body,
    maxRedirects: 0,
  });
  let data: unknown = response.text();
  try {
    data = JSON.parse(response.text());
  } catch {
    // not JSON: keep the text for the assertion message
  }
  const code =
    data && typeof data === "object" && typeof (data as { code?: unknown }).code === "string"
      ? (data as { code: string }).code
      : undefined;
  return { status: response.status, code, data, signature, timestamp: sent.timestamp };
}
