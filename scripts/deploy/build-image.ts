/**
 * `npm run deploy:image`: the app's container image, built here with no registry (docs/deployment.md). After
 * `npm run build`, it assembles a root filesystem from
 * - the host's Node 20 (`/usr/bin/node`) and the shared libraries `ldd` says it needs (glibc, libstdc++: nothing
 *   else; DNS and /etc/hosts are inside glibc 2.36), the CA bundle, and an unprivileged user `sitewright` (10002);
 * - the production build (`.next` without its cache) and the files `npm start` reads at run time (server.mjs and
 *   its two .mjs helpers, drizzle/ migrations, public/, plugin/ for the plugin download, package.json,
 *   next.config.ts) and the engine proxy's (scripts/engine-proxy.mjs and lib/sandbox/engine-proxy/);
 * - production dependencies only (`npm install --omit=dev`), cached in $SITEWRIGHT_CACHE/deploy by the lock file's
 *   hash: the one slow step, done once per lock file;
 * and imports it with `podman import` as `localhost/sitewright-app:<hash of the inputs>`. An image with that tag
 * already present is reused. Images this script made before (its `sitewright.inputs` label) are removed, but for
 * the current one and the one before it (a way back) and those a container uses; an image it did not make is never
 * touched, whatever its name. Prints progress on stderr and the tag on the last line of stdout.
 *
 *   npm run deploy:image [-- --force]
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..", "..");
const cache = path.join(process.env.SITEWRIGHT_CACHE || "/var/cache/sitewright", "deploy");
const NODE = "/usr/bin/node";
export const APP_UID = 10002;
const IMAGE_REPOSITORY = "localhost/sitewright-app";
const started = Date.now();
const progress = (message: string) =>
  console.error(`deploy:image: ${message} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

/** What `npm start` reads at run time, besides .next and node_modules. */
const APP_FILES = [
  "server.mjs",
  "lib/http/forwarded.mjs",
  "lib/http/request-context.mjs",
  "scripts/lib/listen-port.mjs",
  "scripts/engine-proxy.mjs",
  "lib/sandbox/engine-proxy/policy.mjs",
  "lib/sandbox/engine-proxy/server.mjs",
  "drizzle",
  "public",
  "plugin",
  "package.json",
  "next.config.ts",
];
/** Never shipped from plugin/: its tests and development files (lib/plugin-package.ts filters the zip too). */
const PLUGIN_SKIP = new Set(["tests", "vendor", "phpunit.xml.dist", "phpcs.xml.dist", "bin"]);

const sha = (...parts: (string | Buffer)[]) => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part).update("\0");
  return hash.digest("hex");
};

function hashTree(dir: string): string {
  const hash = createHash("sha256");
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(current, entry.name);
      hash.update(`${path.relative(root, full)}\0`);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) hash.update(readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest("hex");
}

function run(command: string, args: string[], options: { cwd?: string; input?: NodeJS.ReadableStream } = {}) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      stdio: [options.input ? "pipe" : "ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk) => (out += chunk));
    child.stderr?.on("data", (chunk) => (err += chunk));
    if (options.input && child.stdin) options.input.pipe(child.stdin);
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

/** Production dependencies for this lock file, installed once into the cache (atomically: a rename at the end). */
async function productionDependencies(): Promise<{ dir: string; key: string }> {
  const lock = readFileSync(path.join(root, "package-lock.json"));
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as Record<string, unknown>;
  const key = sha(lock, JSON.stringify(manifest.dependencies), process.version).slice(0, 16);
  const dir = path.join(cache, `deps-${key}`);
  if (existsSync(path.join(dir, "node_modules"))) return { dir, key };
  progress(`installing production dependencies (lock ${key}), once per lock file`);
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(path.join(cache, "deps-staging-"));
  try {
    const { devDependencies: _dev, scripts: _scripts, ...rest } = manifest;
    writeFileSync(path.join(staging, "package.json"), JSON.stringify(rest, null, 2));
    cpSync(path.join(root, "package-lock.json"), path.join(staging, "package-lock.json"));
    // No install scripts (npm 11 runs none unapproved anyway); `npm ci` refuses this lock here (ENVIRONMENT.md).
    await run(
      "npm",
      ["install", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
      { cwd: staging },
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { dir, key };
}

/** The host's shared libraries a binary needs, as `ldd` resolves them (paths kept: the loader finds them there). */
function librariesOf(binary: string): string[] {
  const output = execFileSync("ldd", [binary], { encoding: "utf8" });
  const libraries: string[] = [];
  for (const line of output.split("\n")) {
    const match = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s*\(/.exec(line);
    if (match) libraries.push(match[1]!);
  }
  return libraries;
}

/**
 * Node's shared libraries, and those of the native modules shipped in node_modules (sharp's libvips needs
 * libresolv, which Node does not): the system's copies only, the modules bring their own.
 */
function nodeLibraries(depsDir: string): string[] {
  const libraries = new Set(librariesOf(NODE));
  if (![...libraries].some((library) => library.includes("ld-linux"))) throw new Error(`ldd ${NODE}: no loader`);
  for (const file of nativeModules(path.join(depsDir, "node_modules")))
    for (const library of librariesOf(file)) if (!library.startsWith(depsDir)) libraries.add(library);
  return [...libraries];
}

/** Every `.node` addon and shared object under a folder. */
function nativeModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.node$|\.so(\.\d+)*$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function assembleRootfs(target: string, depsDir: string) {
  const copy = (from: string, to = from) => cpSync(from, path.join(target, to), { recursive: true, dereference: true });
  copy(NODE);
  for (const library of nodeLibraries(depsDir)) copy(library);
  copy("/etc/ssl/certs/ca-certificates.crt");
  // World-writable and sticky, as /tmp: the app's user writes temporary files and the media proxy's cache there.
  for (const dir of ["tmp", "var/cache/sitewright"]) {
    mkdirSync(path.join(target, dir), { recursive: true });
    chmodSync(path.join(target, dir), 0o1777);
  }
  mkdirSync(path.join(target, "etc"), { recursive: true });
  writeFileSync(
    path.join(target, "etc/passwd"),
    `root:x:0:0:root:/root:/sbin/nologin\nsitewright:x:${APP_UID}:${APP_UID}:Sitewright:/app:/sbin/nologin\n`,
  );
  writeFileSync(path.join(target, "etc/group"), `root:x:0:\nsitewright:x:${APP_UID}:\n`);
  writeFileSync(path.join(target, "etc/nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files dns\n");

  const app = path.join(target, "app");
  mkdirSync(app, { recursive: true });
  for (const file of APP_FILES) {
    cpSync(path.join(root, file), path.join(app, file), {
      recursive: true,
      filter: (source) => !(file === "plugin" && PLUGIN_SKIP.has(path.relative(path.join(root, "plugin"), source))),
    });
  }
  // The build without its caches (Turbopack's and the image optimizer's are rebuilt at run time, in .next/cache).
  cpSync(path.join(root, ".next"), path.join(app, ".next"), {
    recursive: true,
    verbatimSymlinks: true, // .next/node_modules links externals as ../../node_modules/<package>
    filter: (source) => !/^(cache|dev|types|trace)(\/|$)/.test(path.relative(path.join(root, ".next"), source)),
  });
  mkdirSync(path.join(app, ".next/cache"), { recursive: true });
  chmodSync(path.join(app, ".next/cache"), 0o1777);
  cpSync(path.join(depsDir, "node_modules"), path.join(app, "node_modules"), {
    recursive: true,
    verbatimSymlinks: true,
  });
}

/** The label this script puts on every image it makes (its inputs' hash): how it knows its own. */
const MADE_HERE = "sitewright.inputs";

/**
 * Earlier builds of this script (one layer each, ~600 MB), newest first: all but the current one and the one
 * before it are removed, unless a container still uses them. Images without our label are never listed.
 */
async function removeOlderImages(current: string) {
  const listed = await run("podman", [
    "images",
    "--filter",
    `label=${MADE_HERE}`,
    "--sort",
    "created",
    "--format",
    "{{.Repository}}:{{.Tag}}",
  ]);
  const ours = listed
    .split("\n")
    .map((line) => line.trim())
    .filter((image) => image.startsWith(`${IMAGE_REPOSITORY}:`) && image !== current);
  // `--sort created` lists newest first: the first of the others is the way back.
  for (const image of ours.slice(1)) {
    await run("podman", ["rmi", image]).catch(() => {}); // in use by a container: kept
  }
}

async function main() {
  const force = process.argv.includes("--force");
  const buildIdFile = path.join(root, ".next", "BUILD_ID");
  if (!existsSync(buildIdFile)) throw new Error("no production build in .next: run `npm run build` first");
  const deps = await productionDependencies();
  const inputs = sha(
    readFileSync(buildIdFile),
    deps.key,
    process.version, // the Node binary is large: its version stands for it
    ...APP_FILES.filter((file) => !["drizzle", "public", "plugin"].includes(file)).map((file) =>
      readFileSync(path.join(root, file)),
    ),
    hashTree(path.join(root, "drizzle")),
    hashTree(path.join(root, "public")),
    hashTree(path.join(root, "plugin")),
    readFileSync(import.meta.filename),
  ).slice(0, 16);
  const tag = `${IMAGE_REPOSITORY}:${inputs}`;
  const exists = await run("podman", ["image", "exists", tag]).then(
    () => true,
    () => false,
  );
  if (exists && !force) {
    progress(`${tag} is up to date`);
    await removeOlderImages(tag);
    console.log(tag);
    return;
  }
  const target = mkdtempSync(path.join(tmpdir(), "sitewright-app-rootfs-"));
  try {
    progress("assembling the root filesystem");
    assembleRootfs(target, deps.dir);
    progress("importing into Podman");
    const tar = spawn("tar", ["-C", target, "--numeric-owner", "--owner=0", "--group=0", "-cf", "-", "."], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const changes = [
      "WORKDIR /app",
      `USER ${APP_UID}:${APP_UID}`,
      "ENV NODE_ENV=production",
      "ENV PORT=3000",
      "ENV SITEWRIGHT_CACHE=/var/cache/sitewright",
      "EXPOSE 3000",
      "STOPSIGNAL SIGTERM",
      `LABEL org.opencontainers.image.title=sitewright-app`,
      `LABEL ${MADE_HERE}=${inputs}`,
      'ENTRYPOINT ["/usr/bin/node", "server.mjs"]',
    ];
    await run("podman", ["import", ...changes.flatMap((change) => ["--change", change]), "-", tag], {
      input: tar.stdout,
    });
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
  await removeOlderImages(tag);
  const size = (await run("podman", ["image", "inspect", "--format", "{{.Size}}", tag])).trim();
  progress(`built ${tag}, ${Math.round(Number(size) / 1e6)} MB`);
  console.log(tag);
}

main().catch((error) => {
  console.error(`deploy:image: failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
