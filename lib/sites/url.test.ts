import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { normalizeSiteUrl } from "./url";

function refusal(input: string): AppError {
  try {
    normalizeSiteUrl(input);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`${input} was accepted`);
}

describe("site URL normalization", () => {
  it.each([
    ["https://Example.COM", "https://example.com"],
    ["https://example.com/", "https://example.com"],
    ["https://example.com:443/", "https://example.com"],
    ["https://example.com:8443/", "https://example.com:8443"],
    ["https://example.com/blog///", "https://example.com/blog"],
    ["https://example.com/Blog/?p=1#top", "https://example.com/Blog"],
    ["  https://example.com.  ", "https://example.com"],
    ["example.com", "https://example.com"],
    ["example.com:8443/site/", "https://example.com:8443/site"],
    ["https://bücher.example/", "https://xn--bcher-kva.example"],
    ["HTTPS://EXAMPLE.com/a/../b/", "https://example.com/b"],
  ])("writes %s as %s", (input, expected) => {
    expect(normalizeSiteUrl(input)).toBe(expected);
  });

  it("gives every spelling of one site the same URL, so pairing can match it", () => {
    const spellings = ["https://example.com", "https://EXAMPLE.com/", "https://example.com:443", "example.com/#x"];
    expect(new Set(spellings.map(normalizeSiteUrl)).size).toBe(1);
  });

  it("refuses http with insecure_url (422)", () => {
    const error = refusal("http://example.com");
    expect(error.code).toBe("insecure_url");
    expect(error.status).toBe(422);
  });

  it.each([
    "",
    "   ",
    "https://",
    "ftp://example.com",
    "javascript:alert(1)",
    "https://exa mple.com",
    `https://example.com/${"a".repeat(2100)}`,
  ])("refuses %j with invalid_input", (input) => {
    const error = refusal(input);
    expect(error.code).toBe("invalid_input");
    expect(error.status).toBe(400);
  });

  it("refuses a user name or password in the address", () => {
    expect(refusal("https://admin:secret@example.com").code).toBe("invalid_input");
    expect(refusal("https://admin@example.com").code).toBe("invalid_input");
  });
});
