import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listenPort } from "./listen-port.mjs";

const dirs: string[] = [];
function projectWith(dotenv?: string) {
  const root = mkdtempSync(path.join(tmpdir(), "sitewright-port-"));
  dirs.push(root);
  if (dotenv !== undefined) writeFileSync(path.join(root, ".env"), dotenv);
  return root;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the port npm run dev and npm start listen on", () => {
  it("takes PORT from .env when the environment has none", () => {
    expect(listenPort({ env: {}, root: projectWith("# local\nPORT=4123\nAPP_URL=http://localhost:4123\n") })).toBe(
      4123,
    );
  });

  it("lets the environment win over .env, and an empty PORT count as unset", () => {
    const root = projectWith("PORT=4123\n");
    expect(listenPort({ env: { PORT: "5000" }, root })).toBe(5000);
    expect(listenPort({ env: { PORT: "" }, root })).toBe(4123);
  });

  it("lets -p/--port win over both", () => {
    const root = projectWith("PORT=4123\n");
    expect(listenPort({ args: ["-p", "4200"], env: { PORT: "5000" }, root })).toBe(4200);
    expect(listenPort({ args: ["--port=4201"], env: {}, root })).toBe(4201);
  });

  it("falls back to 3000 without .env or with the template's empty PORT=", () => {
    expect(listenPort({ env: {}, root: projectWith() })).toBe(3000);
    expect(listenPort({ env: {}, root: projectWith("PORT=\n") })).toBe(3000);
  });

  it("refuses a value that is not a port, naming it", () => {
    expect(() => listenPort({ env: {}, root: projectWith("PORT=80a\n") })).toThrow("not a port: 80a");
    expect(() => listenPort({ env: { PORT: "70000" }, root: projectWith() })).toThrow("not a port: 70000");
  });
});
