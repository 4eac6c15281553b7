import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import { safeRedirectPath } from "./redirect";

const APP = "https://app.example:8443";

describe("redirect targets after login", () => {
  beforeAll(() => resetEnvForTests({ APP_URL: APP }));
  afterAll(() => resetEnvForTests({}));

  it.each([
    ["/connect", "/connect"],
    ["/sites/abc/chat?x=1#end", "/sites/abc/chat?x=1#end"],
    ["connect", "/connect"],
    [`${APP}/sites`, "/sites"],
    ["/%2F%2Fevil.test", "/%2F%2Fevil.test"],
    ["%2F%2Fevil.test", "/%2F%2Fevil.test"],
    ["/%5Cevil.test", "/%5Cevil.test"],
    // Same scheme as APP_URL: a browser reads it as a path on our origin too.
    ["https:evil.test", "/evil.test"],
  ])("keeps %j on our origin as %j", (target, expected) => {
    expect(safeRedirectPath(target)).toBe(expected);
  });

  it.each([
    "//evil.test",
    "///evil.test",
    "/\\evil.test",
    "\\/evil.test",
    "\\\\evil.test",
    "/\t/evil.test",
    "/\n/evil.test",
    "\t//evil.test",
    " //evil.test",
    "http:evil.test",
    "https://evil.test",
    "https://app.example:8443@evil.test",
    "http://localhost:3000@evil.test",
    "https://app.example:8443.evil.test/",
    "http://app.example:8443/",
    "https://app.example/",
    "javascript:alert(document.domain)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "/.//evil.test",
    "/..//evil.test",
    "https://user:pass@app.example:8443/",
    "",
  ])("sends %j to the default page", (target) => {
    expect(safeRedirectPath(target)).toBe("/");
  });

  it("gives the fallback for anything that is not a string", () => {
    expect(safeRedirectPath(undefined)).toBe("/");
    expect(safeRedirectPath(["/a", "/b"], "/home")).toBe("/home");
    expect(safeRedirectPath(null)).toBe("/");
  });
});
