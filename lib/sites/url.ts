/** The one spelling of a site URL that pairing matches on (docs/api.md, "Sites and pairing"). */
import { AppError } from "../errors";

const MAX_URL_LENGTH = 2048;

function invalid(message: string): AppError {
  return new AppError("invalid_input", message, { details: { issues: [{ path: ["url"], message }] } });
}

/**
 * `https://Example.COM:443/blog/?x#y` → `https://example.com/blog`: https only, lowercased host without a
 * trailing dot, no default port, no userinfo, no query or fragment, no trailing slash. A URL typed without a
 * scheme is taken as https. Throws `invalid_input` (400) or, for http, `insecure_url` (422).
 */
export function normalizeSiteUrl(input: string): string {
  const text = typeof input === "string" ? input.trim() : "";
  if (!text) throw invalid("Enter your site's address, like https://example.com.");
  if (text.length > MAX_URL_LENGTH) throw invalid("That address is too long.");
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^:/]+:\d+(\/|$)/.test(text) ? text : `https://${text}`;

  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalid("That is not a web address. Use the form https://example.com.");
  }
  if (url.protocol === "http:") {
    throw new AppError(
      "insecure_url",
      "Your site must use https. Turn on HTTPS for it, then use its https:// address.",
    );
  }
  if (url.protocol !== "https:") throw invalid("Use your site's https:// address.");
  if (url.username || url.password) throw invalid("Remove the user name and password from the address.");

  const host = url.hostname.replace(/\.$/, "");
  if (!host || host.startsWith(".")) throw invalid("That address has no host name.");
  const port = url.port ? `:${url.port}` : "";
  const path = url.pathname.replace(/\/+$/, "");
  return `https://${host}${port}${path}`;
}
