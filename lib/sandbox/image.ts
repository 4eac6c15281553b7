/**
 * The sandbox image: Debian's PHP, WordPress 6.1 on SQLite (preinstalled, so a cold start is only "start PHP"),
 * our plugin, active. Built here, offline, with no registry:
 *   1. a base image imported from a debootstrap root filesystem (cached as a tarball; ~40–80 s the first time),
 *   2. a top layer (WordPress, plugin, seed database) built FROM that base with COPY, and PHP's opcache file cache
 *      compiled from it in the image, by the image's own PHP (a few seconds): a sandbox's first request then loads
 *      WordPress compiled instead of compiling it.
 * Both are tagged with a hash of their inputs and reused while the inputs are unchanged.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AppError } from "@/lib/errors";
import type { SandboxEngine } from "./engine";
import { sandboxWpConfig } from "./image/wp-config";

/** Debian packages of the sandbox's root filesystem (php8.2-opcache keeps WordPress's compiled code warm). */
export const ROOTFS_PACKAGES = [
  "php8.2-cli",
  "php8.2-opcache",
  "php8.2-sqlite3",
  "php8.2-xml",
  "php8.2-mbstring",
  "php8.2-curl",
  "php8.2-gd",
  "php8.2-intl",
  "ca-certificates",
] as const;

export const IMAGE_REPOSITORY = "localhost/sitewright-sandbox";
export const BASE_REPOSITORY = "localhost/sitewright-sandbox-base";
/** Where the plugin lives inside the image's WordPress. */
export const WORDPRESS_PATH = "/srv/wordpress";
export const PLUGIN_SLUG = "sitewright-connector";

export type Progress = (message: string) => void;

export type ImagePaths = {
  /** The repository root (where plugin/, scripts/ and lib/ are). */
  root: string;
  /** `${SITEWRIGHT_CACHE:-/var/cache/sitewright}`. */
  cacheDir: string;
  pluginDir: string;
};

export function defaultImagePaths(cacheDir: string): ImagePaths {
  const root = process.cwd();
  return { root, cacheDir, pluginDir: path.join(root, "plugin") };
}

const imageFilesDir = (root: string) => path.join(root, "lib", "sandbox", "image");
const rootfsScript = (root: string) => path.join(root, "scripts", "sandbox", "rootfs.sh");
const wordpressScript = (root: string) => path.join(root, "scripts", "setup", "wordpress.sh");

async function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; onLine?: Progress } = {},
) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const line of chunk.toString().split("\n")) if (line.trim()) options.onLine?.(line.trim());
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${command} ${args.join(" ")} exited with ${code}: ${stderr.slice(-2000)}`)),
    );
  });
}

/** Every file under dir (relative paths, sorted), skipping tests and dot-files: what ships in the image. */
async function listFiles(dir: string, skip: (relative: string) => boolean = () => false): Promise<string[]> {
  const out: string[] = [];
  async function walk(relative: string) {
    const entries = await readdir(path.join(dir, relative), { withFileTypes: true });
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.name.startsWith(".") || skip(child)) continue;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) out.push(child);
    }
  }
  await walk("");
  return out.sort();
}

const skipPluginDevFiles = (relative: string) =>
  /^(tests|node_modules|vendor\/bin)(\/|$)/.test(relative) || /\.(md|xml\.dist)$/.test(relative);

async function hashFiles(hash: ReturnType<typeof createHash>, dir: string, files: string[]) {
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(await readFile(path.join(dir, file)));
    hash.update("\0");
  }
}

/** The WordPress tree that scripts/setup/wordpress.sh prepares (built once, cached). */
export async function ensureWordPressTree(paths: ImagePaths, progress: Progress = () => {}): Promise<string> {
  const out = await run("bash", [wordpressScript(paths.root)], {
    env: { SITEWRIGHT_CACHE: paths.cacheDir },
    onLine: (line) => progress(`wordpress: ${line}`),
  });
  const tree = out.trim().split("\n").pop() ?? "";
  if (!existsSync(path.join(tree, "wp-settings.php"))) throw new Error(`wordpress.sh gave no WordPress tree (${tree})`);
  return tree;
}

export type ImageInputs = { baseTag: string; imageTag: string; wordpressTree: string; fileCache: boolean };

/**
 * What a build may leave out: `fileCache: false` builds the image without its opcache file cache (a tag of its own),
 * so the bench can measure a cold start with and without it side by side. The service always runs with it.
 */
export type ImageVariant = { fileCache?: boolean };

/** Where the image keeps WordPress compiled (opcache-compile.php; entrypoint.sh links it into /data at start). */
export const OPCACHE_FILE_CACHE = "/srv/opcache";

/** The base layer's inputs: the Debian packages and the script that bootstraps them. */
async function baseHashOf(paths: ImagePaths): Promise<string> {
  const base = createHash("sha256");
  base.update(`packages:${ROOTFS_PACKAGES.join(",")}\n`);
  base.update(await readFile(rootfsScript(paths.root)));
  return base.digest("hex").slice(0, 16);
}

/**
 * The sandbox image's base (Debian's root filesystem with PHP, no WordPress), imported when missing; its tag. The
 * app's Containerfile can be built from it where no registry is reachable (scripts/deploy/local-base.ts).
 */
export async function ensureSandboxBaseImage(
  engine: SandboxEngine,
  paths: ImagePaths,
  progress: Progress = () => {},
): Promise<string> {
  const baseTag = `${BASE_REPOSITORY}:${await baseHashOf(paths)}`;
  await ensureBaseImage(engine, paths, baseTag, progress);
  return baseTag;
}

/** Tags from the hashes of everything that goes into each layer. */
export async function computeImageInputs(
  paths: ImagePaths,
  wordpressTree: string,
  variant: ImageVariant = {},
): Promise<ImageInputs> {
  const baseHash = await baseHashOf(paths);
  const fileCache = variant.fileCache ?? true;

  const top = createHash("sha256");
  top.update(`base:${baseHash}\n`);
  if (!fileCache) top.update("without the opcache file cache\n");
  top.update(await readFile(path.join(wordpressTree, ".sitewright-wordpress")));
  const imageDir = imageFilesDir(paths.root);
  await hashFiles(top, imageDir, await listFiles(imageDir));
  top.update(await readFile(path.join(paths.root, "lib", "sandbox", "image.ts")));
  const wordpressDir = path.join(paths.root, "lib", "wordpress");
  await hashFiles(top, wordpressDir, await listFiles(wordpressDir));
  top.update("plugin\0");
  await hashFiles(top, paths.pluginDir, await listFiles(paths.pluginDir, skipPluginDevFiles));
  return {
    baseTag: `${BASE_REPOSITORY}:${baseHash}`,
    imageTag: `${IMAGE_REPOSITORY}:${top.digest("hex").slice(0, 16)}`,
    wordpressTree,
    fileCache,
  };
}

async function ensureBaseImage(engine: SandboxEngine, paths: ImagePaths, baseTag: string, progress: Progress) {
  if (await engine.imageExists(baseTag)) return;
  const [repo = BASE_REPOSITORY, tag = "latest"] = baseTag.split(/:(?=[^:]+$)/);
  const tarball = path.join(paths.cacheDir, "sandbox", `rootfs-${tag}.tar`);
  if (!existsSync(tarball)) {
    progress(`building the root filesystem from Debian packages (about a minute): ${ROOTFS_PACKAGES.join(", ")}`);
    await mkdir(path.dirname(tarball), { recursive: true });
    await run("bash", [rootfsScript(paths.root), tarball], {
      env: { SANDBOX_ROOTFS_PACKAGES: ROOTFS_PACKAGES.join(",") },
      onLine: (line) => {
        if (/^(I: (Retrieving|Validating|Extracting|Installing|Base)|rootfs\.sh)/.test(line))
          progress(`rootfs: ${line}`);
      },
    });
  } else {
    progress(`reusing the cached root filesystem ${tarball}`);
  }
  progress(`importing ${baseTag}`);
  // Docker and Podman both accept the tag inside `repo`; Podman ignores a separate `tag`.
  const stream = await engine.docker.importImage(tarball, { repo: baseTag });
  let importedId: string | undefined;
  await followProgress(engine, stream, (event) => {
    const id = [event.id, event.status].find(
      (value): value is string => typeof value === "string" && /^sha256:[0-9a-f]{64}$/.test(value),
    );
    if (id) importedId = id;
  });
  if (!(await engine.imageExists(baseTag)) && importedId) {
    await engine.docker.getImage(importedId).tag({ repo, tag });
  }
  if (!(await engine.imageExists(baseTag))) throw new Error(`the engine did not keep the imported ${baseTag}`);
}

function followProgress(
  engine: SandboxEngine,
  stream: NodeJS.ReadableStream,
  onEvent: (event: Record<string, unknown>) => void,
) {
  return new Promise<void>((resolve, reject) => {
    engine.docker.modem.followProgress(
      stream,
      (error: Error | null, events: Array<Record<string, unknown>>) => {
        const failed = error ?? events.find((event) => event.error || event.errorDetail);
        if (failed)
          reject(failed instanceof Error ? failed : new Error(String(failed.error ?? JSON.stringify(failed))));
        else resolve();
      },
      onEvent,
    );
  });
}

/** Lays out the top layer: WordPress + plugin + our config, and the preinstalled seed database. */
async function stageTopLayer(paths: ImagePaths, inputs: ImageInputs, context: string, progress: Progress) {
  const imageDir = imageFilesDir(paths.root);
  const wp = path.join(context, "srv", "wordpress");
  progress("staging WordPress, the plugin and the sandbox configuration");
  await cp(inputs.wordpressTree, wp, { recursive: true, verbatimSymlinks: true });
  await rm(path.join(wp, ".sitewright-wordpress"), { force: true });
  await rm(path.join(wp, "wp-content", "plugins", "akismet"), { recursive: true, force: true });
  await rm(path.join(wp, "wp-content", "plugins", "hello.php"), { force: true });
  await writeFile(path.join(wp, "wp-config.php"), sandboxWpConfig());
  await mkdir(path.join(wp, "wp-content", "mu-plugins"), { recursive: true });
  await cp(
    path.join(imageDir, "sitewright-sandbox.php"),
    path.join(wp, "wp-content", "mu-plugins", "sitewright-sandbox.php"),
  );
  const pluginTarget = path.join(wp, "wp-content", "plugins", PLUGIN_SLUG);
  for (const file of await listFiles(paths.pluginDir, skipPluginDevFiles)) {
    await mkdir(path.dirname(path.join(pluginTarget, file)), { recursive: true });
    await cp(path.join(paths.pluginDir, file), path.join(pluginTarget, file));
  }
  // Uploads land in the container's tmpfs; the tree itself stays read-only.
  await rm(path.join(wp, "wp-content", "uploads"), { recursive: true, force: true });
  await symlink("/data/uploads", path.join(wp, "wp-content", "uploads"));
  await cp(path.join(imageDir, "router.php"), path.join(context, "srv", "router.php"));
  await cp(path.join(imageDir, "entrypoint.sh"), path.join(context, "sitewright-sandbox"));
  await cp(path.join(imageDir, "opcache-compile.php"), path.join(context, "opcache-compile.php"));

  progress("preinstalling WordPress into the seed database");
  const scratch = await mkdtemp(path.join(os.tmpdir(), "sitewright-install-"));
  try {
    const salts = [
      "AUTH_KEY",
      "SECURE_AUTH_KEY",
      "LOGGED_IN_KEY",
      "NONCE_KEY",
      "AUTH_SALT",
      "SECURE_AUTH_SALT",
      "LOGGED_IN_SALT",
      "NONCE_SALT",
    ]
      .map((key) => `define('${key}', 'build-only-${key}');`)
      .join("\n");
    await writeFile(path.join(scratch, "salts.php"), `<?php\n${salts}\n`);
    await mkdir(path.join(scratch, "db"));
    const installEnv = {
      SITEWRIGHT_DB_DIR: `${path.join(scratch, "db")}/`,
      SITEWRIGHT_SALTS_FILE: path.join(scratch, "salts.php"),
    };
    const out = await run("php", [path.join(imageDir, "install.php"), wp], { env: installEnv });
    const active = (JSON.parse(out.trim().split("\n").pop() ?? "{}") as { plugins?: string[] }).plugins ?? [];
    if (!active.some((plugin) => plugin.startsWith(`${PLUGIN_SLUG}/`))) {
      throw new Error(`the Sitewright plugin did not activate (active: ${active.join(", ") || "none"})`);
    }
    progress("serving WordPress's first requests into the seed database");
    await run("php", [path.join(imageDir, "warm.php"), wp], { env: installEnv });
    await mkdir(path.join(context, "srv", "seed"), { recursive: true });
    await cp(path.join(scratch, "db", ".ht.sqlite"), path.join(context, "srv", "seed", "wordpress.sqlite"));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  await writeFile(path.join(context, "Dockerfile"), dockerfile(inputs));
}

/**
 * The top layer. The opcache file cache is compiled after WordPress is in place, by the image's PHP with the
 * opcache settings the entrypoint runs (the cache is keyed by that PHP's system id, each script's path and mtime,
 * all as every container of the image sees them), as root, then made readable to the sandbox user and to nobody
 * writable: the sandbox only reads it.
 */
function dockerfile(inputs: ImageInputs): string {
  const compiler = "/usr/local/lib/sitewright/opcache-compile.php";
  const compileFileCache = [
    `COPY opcache-compile.php ${compiler}`,
    `RUN mkdir ${OPCACHE_FILE_CACHE} \\`,
    `  && php -d opcache.enable_cli=1 -d opcache.file_cache=${OPCACHE_FILE_CACHE} -d opcache.file_update_protection=0 \\`,
    `    ${compiler} ${WORDPRESS_PATH} /srv/router.php \\`,
    `  && chmod -R a+rX,go-w ${OPCACHE_FILE_CACHE}`,
  ];
  return [
    `FROM ${inputs.baseTag}`,
    "COPY srv /srv",
    "COPY sitewright-sandbox /usr/local/bin/sitewright-sandbox",
    ...(inputs.fileCache ? compileFileCache : []),
    "USER 10001:10001",
    "WORKDIR /srv",
    "EXPOSE 8080",
    // A sandbox keeps nothing worth a graceful shutdown, and PHP as PID 1 ignores SIGTERM.
    "STOPSIGNAL SIGKILL",
    'ENTRYPOINT ["/usr/local/bin/sitewright-sandbox"]',
    `LABEL sitewright.image-inputs="${inputs.imageTag.split(":").pop()}"`,
    "",
  ].join("\n");
}

/** Builds under way in this process, by variant. */
const building = new Map<string, Promise<string>>();

/**
 * The image sandboxes run: `SANDBOX_IMAGE` when the operator named one (it must exist), otherwise ours, built
 * when missing. Concurrent callers in one process share one build.
 */
export async function ensureSandboxImage(options: {
  engine: SandboxEngine;
  configuredImage?: string;
  paths: ImagePaths;
  progress?: Progress;
  variant?: ImageVariant;
}): Promise<string> {
  const { engine, configuredImage, variant = {} } = options;
  if (configuredImage) {
    if (!(await engine.imageExists(configuredImage))) {
      throw new AppError("sandbox_unavailable", "The configured sandbox image is missing.", {
        details: { image: configuredImage },
      });
    }
    return configuredImage;
  }
  const key = JSON.stringify(variant);
  let build = building.get(key);
  if (!build) {
    build = buildImage(engine, options.paths, options.progress ?? (() => {}), variant).finally(() => {
      building.delete(key);
    });
    building.set(key, build);
  }
  return build;
}

async function buildImage(
  engine: SandboxEngine,
  paths: ImagePaths,
  progress: Progress,
  variant: ImageVariant,
): Promise<string> {
  const started = Date.now();
  const tree = await ensureWordPressTree(paths, progress);
  const inputs = await computeImageInputs(paths, tree, variant);
  if (await engine.imageExists(inputs.imageTag)) {
    progress(`${inputs.imageTag} is up to date`);
    return inputs.imageTag;
  }
  await ensureBaseImage(engine, paths, inputs.baseTag, progress);
  const context = await mkdtemp(path.join(os.tmpdir(), "sitewright-image-"));
  try {
    await stageTopLayer(paths, inputs, context, progress);
    progress(`building ${inputs.imageTag}`);
    const tar = spawn("tar", ["-c", "-C", context, "."], { stdio: ["ignore", "pipe", "inherit"] });
    // The build's RUN step (the file cache) needs no network.
    const stream = await engine.docker.buildImage(tar.stdout, {
      t: inputs.imageTag,
      rm: true,
      forcerm: true,
      networkmode: "none",
    });
    await followProgress(engine, stream, (event) => {
      const line = typeof event.stream === "string" ? event.stream.trim() : "";
      if (line.startsWith("STEP") || line.startsWith("Step")) progress(`build: ${line}`);
    });
    if (!(await engine.imageExists(inputs.imageTag))) throw new Error(`the build did not produce ${inputs.imageTag}`);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  const size = (await engine.docker.getImage(inputs.imageTag).inspect()).Size;
  progress(
    `built ${inputs.imageTag} (${Math.round(size / 1e6)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return inputs.imageTag;
}

/**
 * Removes the images this deployment used and uses no more (`used`, other than `keep`), and builds of ours left with
 * no tag (nothing can start from one); never an image only another deployment on the same engine made or uses, which
 * would otherwise be rebuilt under it. An image still used by a container stays for the next pass. Returns the tags
 * removed, and the `used` tags this engine holds no more (removed now, or gone before): their records can go.
 */
export async function removeStaleImages(
  engine: SandboxEngine,
  { keep, used }: { keep: string[]; used: string[] },
): Promise<{ removed: string[]; gone: string[] }> {
  // Our builds carry the sitewright.image-inputs label, tagged or left dangling by a newer build.
  const images = await engine.docker.listImages({ filters: { label: ["sitewright.image-inputs"] } });
  const retired = new Set(used.filter((tag) => !keep.includes(tag)));
  const present = new Set<string>();
  const removed: string[] = [];
  for (const image of images) {
    const tags = (image.RepoTags ?? []).filter((tag) => tag !== "<none>:<none>");
    for (const tag of tags) present.add(tag);
    if (tags.length > 0 && !tags.every((tag) => retired.has(tag))) continue;
    try {
      await engine.docker.getImage(image.Id).remove();
      removed.push(...(tags.length ? tags : [image.Id]));
      for (const tag of tags) present.delete(tag);
    } catch {
      // still used by a container: the next pass gets it
    }
  }
  return { removed, gone: [...retired].filter((tag) => !present.has(tag)) };
}
