/**
 * `npm run deploy:image` removes only images it made (issue 35, "Operators"): after a build, its own older builds go
 * but for the one before (a way back), and an image it did not make stays, even in the same repository. The script
 * runs for real (the root filesystem is assembled from the production build in .next) against a `podman` on PATH
 * that records what it is asked and answers as Podman would for the images below; nothing touches the real engine.
 */
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const work = mkdtempSync(path.join(tmpdir(), "sitewright-image-cleanup-"));
const calls = path.join(work, "calls.log");

/** Images on the "host", newest first, and whether deploy:image made them (its `sitewright.inputs` label). */
const IMAGES = [
  { name: "localhost/sitewright-app:operator-pinned", ours: false },
  { name: "localhost/sitewright-app:3333333333333333", ours: true },
  { name: "localhost/sitewright-app-containerfile:mine", ours: false },
  { name: "localhost/sitewright-app:2222222222222222", ours: true },
  { name: "localhost/sitewright-app:1111111111111111", ours: true },
];

const FAKE_PODMAN = `#!/bin/sh
echo "$*" >> ${JSON.stringify(calls)}
case "$1 $2" in
  "image exists") exit 1 ;;
  "image inspect") echo 600000000; exit 0 ;;
esac
case "$1" in
  import) cat > /dev/null; exit 0 ;;
  rmi) exit 0 ;;
  images)
    case "$*" in
      *label=sitewright.inputs*) printf '%s\\n' ${IMAGES.filter((i) => i.ours)
        .map((i) => JSON.stringify(i.name))
        .join(" ")} ;;
      *) printf '%s\\n' ${IMAGES.map((i) => JSON.stringify(i.name)).join(" ")} ;;
    esac
    exit 0 ;;
esac
echo "fake podman: unexpected $*" >&2
exit 2
`;

let removed: string[] = [];

beforeAll(async () => {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) throw new Error("no production build: run `npm run build`");
  writeFileSync(path.join(work, "podman"), FAKE_PODMAN);
  chmodSync(path.join(work, "podman"), 0o755);
  await run(process.execPath, ["--import", "tsx", "scripts/deploy/build-image.ts"], {
    cwd: root,
    env: { ...process.env, PATH: `${work}:${process.env.PATH}` },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 600_000,
  });
  removed = readFileSync(calls, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("rmi "))
    .map((line) => line.slice(4).trim());
}, 660_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npm run deploy:image on a host with other images", () => {
  it("built a new image", () => {
    expect(readFileSync(calls, "utf8")).toMatch(/^import /m);
  });

  it("never removes an image it did not make, whatever its repository", () => {
    for (const image of IMAGES.filter((i) => !i.ours)) expect(removed).not.toContain(image.name);
  });

  it("keeps its build before this one, and removes its older ones", () => {
    expect(removed).toEqual(["localhost/sitewright-app:2222222222222222", "localhost/sitewright-app:1111111111111111"]);
  });
});
