/**
 * Where to send a browser after login (or any "return to" URL taken from a request). The target is parsed as a
 * URL against APP_URL exactly as a browser would parse it (the WHATWG URL parser drops tabs and newlines, reads
 * `\` as `/`, resolves `//host` and `https:host` to another host), and only a result on exactly our origin is
 * kept, as a path; anything else gives the fallback. So `//evil.test`, `/\evil.test`, `/\t/evil.test`,
 * `https:evil.test`, `javascript:…` and `http://ours@evil.test` all land on the fallback.
 */
import { env } from "@/lib/env";

export function safeRedirectPath(target: unknown, fallback = "/"): string {
  if (typeof target !== "string" || target.length === 0 || target.length > 2048) return fallback;
  const base = new URL(env().APP_URL);
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base.origin || url.username || url.password) return fallback;
  // A path that starts with two slashes would be read as another host once it is a Location on its own.
  if (url.pathname.startsWith("//")) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
