/**
 * `npm run deploy:base`: a base image for the Containerfile on a machine with no container registry
 * (docs/deployment.md, "The image"). It is the sandbox image's own base — Debian 12's root filesystem, bootstrapped
 * from the Debian mirror by scripts/sandbox/rootfs.sh and cached by its inputs — with this host's Node (the binary
 * that runs this script), its npm and its CA bundle added, the bundle trusted by Node as on the host (a proxy's CA
 * in it then reaches npm inside the build). Tagged `localhost/sitewright-node-base:<hash of the
 * inputs>` and reused while they are unchanged. Prints progress on stderr and the tag on the last line of stdout:
 *
 *   podman build -f Containerfile --build-arg BASE_IMAGE=$(npm run --silent deploy:base | tail -n 1) -t <tag> .
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sandboxConfig } from "@/lib/sandbox/config";
import { SandboxEngine } from "@/lib/sandbox/engine";
import { defaultImagePaths, ensureSandboxBaseImage } from "@/lib/sandbox/image";

const REPOSITORY = "localhost/sitewright-node-base";
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
const started = Date.now();
const progress = (message: string) =>
  console.error(`deploy:base: ${message} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

/** The npm that came with this Node (its own folder, copied whole). */
function npmFolder(): string {
  const prefix = execFileSync("npm", ["prefix", "-g"], { encoding: "utf8" }).trim();
  return path.join(prefix, "lib", "node_modules", "npm");
}

function podman(args: string[]) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn("podman", args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`podman ${args[0]} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

async function main() {
  // SITEWRIGHT_CACHE is a machine setting shared with scripts/setup/*.sh, as in scripts/sandbox/build-image.ts.
  const config = sandboxConfig(process.env.SITEWRIGHT_CACHE ? { cacheDir: process.env.SITEWRIGHT_CACHE } : {});
  const engine = new SandboxEngine({ dockerHost: config.dockerHost });
  const debian = await ensureSandboxBaseImage(engine, defaultImagePaths(config.cacheDir), progress);
  const npm = npmFolder();
  const npmVersion = (JSON.parse(readFileSync(path.join(npm, "package.json"), "utf8")) as { version: string }).version;
  const hash = createHash("sha256");
  for (const part of [debian, process.version, npmVersion, readFileSync(CA_BUNDLE), readFileSync(import.meta.filename)])
    hash.update(part).update("\0");
  const tag = `${REPOSITORY}:${hash.digest("hex").slice(0, 16)}`;
  try {
    await podman(["image", "exists", tag]);
    progress(`${tag} is up to date`);
    console.log(tag);
    return;
  } catch {
    // not built yet
  }
  const context = mkdtempSync(path.join(tmpdir(), "sitewright-node-base-"));
  try {
    progress(`adding Node ${process.version} and npm ${npmVersion} to ${debian}`);
    cpSync(process.execPath, path.join(context, "node"));
    cpSync(npm, path.join(context, "npm"), { recursive: true });
    cpSync(CA_BUNDLE, path.join(context, "ca-certificates.crt"));
    writeFileSync(
      path.join(context, "Containerfile"),
      [
        `FROM ${debian}`,
        "COPY node /usr/local/bin/node",
        "COPY npm /usr/local/lib/node_modules/npm",
        `COPY ca-certificates.crt ${CA_BUNDLE}`,
        `ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`,
        "RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && node --version && npm --version",
        "",
      ].join("\n"),
    );
    await podman(["build", "--quiet", "-t", tag, "-f", path.join(context, "Containerfile"), context]);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  progress(`built ${tag}`);
  console.log(tag);
}

main().catch((error) => {
  console.error(`deploy:base: failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
