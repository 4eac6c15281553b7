/**
 * The client's address for rate limits. Next.js fills X-Forwarded-For with the socket address when absent; behind
 * a reverse proxy the nearest proxy appends the real client, so the last entry is the one a client cannot forge
 * (deploy behind a proxy that sets it: see docs/operations.md).
 */
export function clientIp(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for");
  const last = forwarded?.split(",").map((part) => part.trim()).filter(Boolean).at(-1);
  return (last ?? request.headers.get("x-real-ip") ?? "unknown").slice(0, 64);
}
