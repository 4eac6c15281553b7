/**
 * A real WordPress (6.1 or 7.1) with Sitewright Connector active, served over https on localhost, for tests and
 * newcomers.
 *
 *   const site = await startLocalSite();      // https://localhost:PORT, plugin active, admin login
 *   const builder = await startLocalSite({ wordpress: "7.1", plugins: ["elementor"] });
 *   ...
 *   await site.stop();
 *
 * How: the cached WordPress tree (scripts/setup/wordpress.sh) is copied to a temp dir, wp-config.php is written
 * (SQLite, fresh salts, SITEWRIGHT_CA_FILE), WordPress is installed and the plugin activated by one PHP process,
 * PHP's built-in server runs it on a free 127.0.0.1 port with 4 workers, and caddy terminates TLS in front with the
 * test CA's localhost certificate (scripts/lib/tls.ts). Clients trust it with NODE_EXTRA_CA_CERTS=<caPath>.
 * The WordPress version is the option's, else SITEWRIGHT_WORDPRESS's (so a whole suite runs on 7.1 with
 * SITEWRIGHT_WORDPRESS=7.1), else 6.1 (docs/wordpress-versions.md).
 */
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { renderWpConfig } from "../../lib/wordpress/wp-config";
import { ensureTestCa } from "../lib/tls";

const execFileAsync = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(HERE, "../..");
const PLUGIN_SLUG = "sitewright-connector";

/** The WordPress versions the harness can start (scripts/setup/wordpress.sh builds each once). */
export const WORDPRESS_VERSIONS = ["6.1", "7.1"] as const;
export type WordPressVersion = (typeof WORDPRESS_VERSIONS)[number];
/** Third-party plugins a local site can have active besides ours, and the oldest WordPress each runs on. */
export const LOCAL_PLUGINS = { elementor: { file: "elementor/elementor.php", minWordPress: "6.8" } } as const;
export type LocalPlugin = keyof typeof LOCAL_PLUGINS;

/** The version a site starts on when the caller names none: SITEWRIGHT_WORDPRESS, else 6.1. */
export function defaultWordPressVersion(env: Record<string, string | undefined> = process.env): WordPressVersion {
  const wanted = env.SITEWRIGHT_WORDPRESS?.trim();
  if (!wanted) return "6.1";
  const known = WORDPRESS_VERSIONS.find((version) => version === wanted);
  if (!known) throw new Error(`SITEWRIGHT_WORDPRESS=${wanted}: use one of ${WORDPRESS_VERSIONS.join(", ")}`);
  return known;
}

function versionAtLeast(version: string, minimum: string): boolean {
  const [a = 0, b = 0] = version.split(".").map(Number);
  const [c = 0, d = 0] = minimum.split(".").map(Number);
  return a > c || (a === c && b >= d);
}

export type LocalSiteOptions = {
  /** WordPress version (default: SITEWRIGHT_WORDPRESS, else "6.1"). */
  wordpress?: WordPressVersion;
  /** Third-party plugins to install and activate besides ours, e.g. ["elementor"] (needs WordPress 7.1 here). */
  plugins?: LocalPlugin[];
  /** Pretty permalinks, so the REST API answers at /wp-json/ (default true). False: only `?rest_route=` works. */
  permalinks?: boolean;
  /** Lets the plugin call an http:// service on localhost (SITEWRIGHT_ALLOW_HTTP_SERVICE). Default false. */
  allowHttpService?: boolean;
  /** Declares the site a sandbox (SITEWRIGHT_SANDBOX), which allows POST /sitewright/v1/import. Default false. */
  sandbox?: boolean;
  /** Install and activate Sitewright Connector from plugin/ (default true). False: a fresh WordPress without it. */
  plugin?: boolean;
  /**
   * Lets wp-admin install and delete plugins in this site's own wp-content (DISALLOW_FILE_MODS off). Default false;
   * wp-admin and wp-includes stay hard links into the shared cache, which plugin installs never write.
   */
  fileMods?: boolean;
  /** The https port (default: a free one). A port in use fails the start. */
  port?: number;
  /**
   * Stands in for Yoast SEO (scripts/site-local/seo-stand-in.php as a must-use plugin): its version constant and
   * meta keys, so SEO operations can be tried locally. Default false.
   */
  seoStandIn?: boolean;
  /** Site title (default "Sitewright Local"). */
  title?: string;
  /** Keep the temp directory after stop() (for debugging). */
  keep?: boolean;
};

export type LocalSite = {
  /** https://localhost:PORT (no trailing slash): the site's home URL. */
  url: string;
  /** The REST root as WordPress reports it: `${url}/wp-json/`, or `${url}/index.php?rest_route=/` without permalinks. */
  restUrl: string;
  /** The WordPress version running, as WordPress reports it (e.g. "6.1.9", "7.1"). */
  wordpress: string;
  /** The active plugins' files (e.g. "elementor/elementor.php"), ours included. */
  activePlugins: string[];
  adminUser: string;
  adminPassword: string;
  /** The CA certificate (PEM) clients must trust. */
  caPath: string;
  /** The WordPress tree of this site (wp-load.php is here). */
  wpPath: string;
  /** The https port. */
  port: number;
  /** PHP's server log and WordPress's debug.log live in this directory. */
  dir: string;
  /** GET a path (e.g. "/wp-json/") over https, trusting the test CA. */
  fetch(
    path: string,
    init?: { method?: string; headers?: Record<string, string>; body?: string },
  ): Promise<LocalResponse>;
  /** Runs `php plugin/bin/sitewright-cli.php --wp=<wpPath> ...args` and parses its JSON. */
  cli<T = unknown>(...args: string[]): Promise<T>;
  stop(): Promise<void>;
};

export type LocalResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

function runWordPressScript(args: string[]): string {
  const result = spawnSync("bash", [join(REPO_ROOT, "scripts/setup/wordpress.sh"), ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (result.status !== 0) {
    throw new Error(`scripts/setup/wordpress.sh ${args.join(" ")} failed with exit code ${result.status}`);
  }
  return result.stdout.trim().split("\n").pop() as string;
}

/** Builds (once) the cached WordPress tree of that version and returns its path. */
export function ensureWordPressTree(version: WordPressVersion = "6.1"): string {
  return runWordPressScript([version]);
}

/** Caches (once) a third-party plugin's checked, unpacked directory and returns its path. */
export function ensurePluginTree(plugin: LocalPlugin): string {
  return runWordPressScript(["--plugin", plugin]);
}

/** Checks the options against each other before anything starts. */
function resolveVersions(options: LocalSiteOptions): { version: WordPressVersion; plugins: LocalPlugin[] } {
  const version = options.wordpress ?? defaultWordPressVersion();
  if (!WORDPRESS_VERSIONS.includes(version)) throw new Error(`Unknown WordPress version ${version}`);
  const plugins = [...new Set(options.plugins ?? [])];
  for (const plugin of plugins) {
    const known = LOCAL_PLUGINS[plugin];
    if (!known) throw new Error(`Unknown plugin ${plugin}: use one of ${Object.keys(LOCAL_PLUGINS).join(", ")}`);
    if (!versionAtLeast(version, known.minWordPress)) {
      throw new Error(`${plugin} needs WordPress ${known.minWordPress}+; start the site with wordpress: "7.1"`);
    }
  }
  return { version, plugins };
}

/** Core code WordPress never writes at runtime (updates and file edits are disabled in wp-config.php). */
const LINKED_DIRS = new Set(["wp-admin", "wp-includes"]);

/**
 * Copies the cached tree; wp-admin and wp-includes are hard-linked (a quarter of a second instead of a second or
 * more), everything WordPress may write (wp-content, root files) is copied.
 */
function copyWordPressTree(tree: string, into: string): void {
  mkdirSync(into);
  for (const entry of readdirSync(tree)) {
    const source = join(tree, entry);
    const target = join(into, entry);
    if (LINKED_DIRS.has(entry) && spawnSync("cp", ["-al", source, target]).status === 0) continue;
    rmSync(target, { recursive: true, force: true });
    cpSync(source, target, { recursive: true });
  }
}

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((done) => {
    const server = net.createServer();
    server.once("error", () => done(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => done(true)));
  });
}

async function freePort(hosts: string[]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = await new Promise<number>((done, fail) => {
      const server = net.createServer();
      server.once("error", fail);
      server.listen({ port: 0, host: hosts[0] }, () => {
        const { port: picked } = server.address() as net.AddressInfo;
        server.close(() => done(picked));
      });
    });
    const free = await Promise.all(hosts.slice(1).map((host) => canListen(port, host)));
    if (free.every(Boolean)) return port;
  }
  throw new Error("No free port found");
}

function wpConfig(opts: {
  dbDir: string;
  caPath: string;
  debugLog: string;
  allowHttpService: boolean;
  sandbox: boolean;
  fileMods: boolean;
}): string {
  return renderWpConfig({
    purpose: "A throwaway local test site (scripts/site-local).",
    dbDir: `${opts.dbDir}/`,
    dbFile: "wordpress.sqlite",
    // caddy terminates TLS and forwards to PHP's server on loopback.
    code: `if ( isset( $_SERVER['HTTP_X_FORWARDED_PROTO'] ) && 'https' === $_SERVER['HTTP_X_FORWARDED_PROTO'] ) {
	$_SERVER['HTTPS'] = 'on';
}`,
    constants: {
      WP_ENVIRONMENT_TYPE: "local",
      WP_DEBUG: true,
      WP_DEBUG_DISPLAY: false,
      WP_DEBUG_LOG: opts.debugLog,
      DISABLE_WP_CRON: true,
      AUTOMATIC_UPDATER_DISABLED: true,
      // By default no core, plugin or theme file is modified (wp-admin and wp-includes are hard links into the
      // shared cache); fileMods allows installing plugins into this site's own wp-content.
      DISALLOW_FILE_MODS: !opts.fileMods,
      WP_HTTP_BLOCK_EXTERNAL: true,
      // Test traffic stays on loopback: WordPress may call only these hosts (the service under test).
      WP_ACCESSIBLE_HOSTS: "localhost,127.0.0.1,[::1]",
      FS_METHOD: "direct",
      SITEWRIGHT_CA_FILE: opts.caPath,
      SITEWRIGHT_ALLOW_HTTP_SERVICE: opts.allowHttpService ? true : undefined,
      SITEWRIGHT_SANDBOX: opts.sandbox ? true : undefined,
    },
  });
}

function caddyConfig(opts: { listen: string[]; upstream: string; cert: string; key: string; storage: string }): string {
  return JSON.stringify({
    admin: { disabled: true },
    logging: { logs: { default: { level: "ERROR" } } },
    storage: { module: "file_system", root: opts.storage },
    apps: {
      http: {
        servers: {
          wordpress: {
            listen: opts.listen,
            automatic_https: { disable: true },
            tls_connection_policies: [{ certificate_selection: { any_tag: ["sitewright-local"] } }],
            routes: [{ handle: [{ handler: "reverse_proxy", upstreams: [{ dial: opts.upstream }] }] }],
          },
        },
      },
      tls: { certificates: { load_files: [{ certificate: opts.cert, key: opts.key, tags: ["sitewright-local"] }] } },
    },
  });
}

function request(
  url: string,
  ca: Buffer,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<LocalResponse> {
  return new Promise((done, fail) => {
    const req = https.request(
      url,
      { method: init.method ?? "GET", headers: init.headers, ca, timeout: 15_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", fail);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`Timed out: ${url}`)));
    req.on("error", fail);
    req.end(init.body);
  });
}

const running = new Set<ChildProcess>();
const spawnErrors = new WeakMap<ChildProcess, Error>();
let exitHookInstalled = false;

/** Signals a child's whole process group: PHP's server forks its workers, which must go too. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function track(child: ChildProcess): void {
  running.add(child);
  // A missing binary (ENOENT) is reported by the readiness loop instead of crashing the process.
  child.once("error", (error) => spawnErrors.set(child, error));
  child.once("exit", () => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Never leave servers behind when a process ends without calling stop().
    process.once("exit", () => {
      for (const proc of running) signalGroup(proc, "SIGKILL");
    });
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return Promise.resolve();
  if (child.exitCode !== null || child.signalCode !== null) {
    signalGroup(child, "SIGKILL");
    return Promise.resolve();
  }
  return new Promise((done) => {
    const timer = setTimeout(() => signalGroup(child, "SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(timer);
      // Workers of PHP's server may outlive their parent by a moment.
      signalGroup(child, "SIGKILL");
      done();
    });
    signalGroup(child, "SIGTERM");
  });
}

/**
 * Starts the site; when php or Caddy could not bind the port picked for it (another process took it between the
 * pick and the bind, which a busy machine makes possible), starts again on new ports, up to three times.
 */
export async function startLocalSite(options: LocalSiteOptions = {}): Promise<LocalSite> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startLocalSiteOnce(options);
    } catch (error) {
      if (attempt >= 3 || !/address already in use|EADDRINUSE/i.test(String(error))) throw error;
    }
  }
}

async function startLocalSiteOnce(options: LocalSiteOptions): Promise<LocalSite> {
  const permalinks = options.permalinks ?? true;
  const withPlugin = options.plugin ?? true;
  const { version, plugins } = resolveVersions(options);
  const tls = ensureTestCa();
  const ca = readFileSync(tls.caCert);
  const tree = ensureWordPressTree(version);
  const pluginTrees = plugins.map((plugin) => ({ plugin, tree: ensurePluginTree(plugin) }));

  const dir = mkdtempSync(join(tmpdir(), "sitewright-site-"));
  const children: ChildProcess[] = [];
  const cleanup = async () => {
    await Promise.all(children.map(stopProcess));
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  };

  try {
    const wpPath = join(dir, "wordpress");
    copyWordPressTree(tree, wpPath);
    if (withPlugin) {
      cpSync(join(REPO_ROOT, "plugin"), join(wpPath, "wp-content/plugins", PLUGIN_SLUG), {
        recursive: true,
        filter: (source) => !/[/\\]plugin[/\\](tests|vendor)([/\\]|$)/.test(source),
      });
    }
    for (const { plugin, tree: pluginTree } of pluginTrees) {
      // Hard links (plugins never write their own code; updates are off): instant even for Elementor's 60 MB.
      const target = join(wpPath, "wp-content/plugins", plugin);
      if (spawnSync("cp", ["-al", pluginTree, target]).status !== 0) cpSync(pluginTree, target, { recursive: true });
    }
    mkdirSync(join(dir, "database"));

    if (options.seoStandIn) {
      mkdirSync(join(wpPath, "wp-content/mu-plugins"), { recursive: true });
      cpSync(join(HERE, "seo-stand-in.php"), join(wpPath, "wp-content/mu-plugins/sitewright-seo-stand-in.php"));
    }

    const ipv6 = await canListen(0, "::1");
    const hosts = ipv6 ? ["127.0.0.1", "::1"] : ["127.0.0.1"];
    const port = options.port ?? (await freePort(hosts));
    if (options.port !== undefined && !(await Promise.all(hosts.map((host) => canListen(port, host)))).every(Boolean)) {
      throw new Error(`Port ${port} is in use: pick another with --port, or leave it out for a free one`);
    }
    const url = `https://localhost:${port}`;

    writeFileSync(
      join(wpPath, "wp-config.php"),
      wpConfig({
        dbDir: join(dir, "database"),
        caPath: tls.caCert,
        debugLog: join(dir, "debug.log"),
        allowHttpService: options.allowHttpService ?? false,
        sandbox: options.sandbox ?? false,
        fileMods: options.fileMods ?? false,
      }),
    );

    const adminUser = "admin";
    const adminPassword = randomBytes(15).toString("base64url");
    const { stdout } = await execFileAsync("php", [
      join(HERE, "install.php"),
      `--wp=${wpPath}`,
      `--url=${url}`,
      `--title=${options.title ?? "Sitewright Local"}`,
      `--admin-user=${adminUser}`,
      `--admin-password=${adminPassword}`,
      "--admin-email=admin@example.com",
      `--permalinks=${permalinks ? "1" : "0"}`,
      `--plugin=${[
        ...plugins.map((plugin) => LOCAL_PLUGINS[plugin].file),
        ...(withPlugin ? [`${PLUGIN_SLUG}/sitewright-connector.php`] : []),
      ].join(",")}`,
    ]);
    const installed = JSON.parse(stdout.trim().split("\n").pop() as string) as {
      restUrl: string;
      wordpress: string;
      plugins: string[];
    };

    // Picked just before php binds it (the install above takes seconds).
    const phpPort = await freePort(["127.0.0.1"]);
    const phpLog = openSync(join(dir, "php-server.log"), "a");
    const php = spawn("php", ["-S", `127.0.0.1:${phpPort}`, "-t", wpPath, join(HERE, "router.php")], {
      cwd: wpPath,
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: "4" },
      stdio: ["ignore", phpLog, phpLog],
      detached: true,
    });
    children.push(php);
    track(php);

    writeFileSync(
      join(dir, "caddy.json"),
      caddyConfig({
        listen: ipv6 ? [`127.0.0.1:${port}`, `[::1]:${port}`] : [`127.0.0.1:${port}`],
        upstream: `127.0.0.1:${phpPort}`,
        cert: tls.cert,
        key: tls.key,
        storage: join(dir, "caddy-data"),
      }),
    );
    const caddyLog = openSync(join(dir, "caddy.log"), "a");
    const caddy = spawn("caddy", ["run", "--config", join(dir, "caddy.json")], {
      env: {
        ...process.env,
        HOME: dir,
        XDG_DATA_HOME: join(dir, "caddy-data"),
        XDG_CONFIG_HOME: join(dir, "caddy-config"),
      },
      stdio: ["ignore", caddyLog, caddyLog],
      detached: true,
    });
    children.push(caddy);
    track(caddy);

    const fetchSite: LocalSite["fetch"] = (path, init) => request(new URL(path, url).toString(), ca, init);
    const deadline = Date.now() + 20_000;
    for (;;) {
      for (const child of children) {
        const spawnError = spawnErrors.get(child);
        if (spawnError) throw new Error(`Could not start ${child.spawnfile}: ${spawnError.message}`);
        if (child.exitCode !== null) {
          const logs = ["php-server.log", "caddy.log"]
            .map((name) => {
              try {
                return readFileSync(join(dir, name), "utf8").slice(-2000);
              } catch {
                return "";
              }
            })
            .join("\n");
          throw new Error(`${child.spawnfile} exited early; see logs in ${dir}:\n${logs}`);
        }
      }
      try {
        const res = await fetchSite(withPlugin ? "/?rest_route=/sitewright/v1" : "/?rest_route=/");
        if (res.status === 200) break;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`The local site did not answer within 20 s; see logs in ${dir}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Elementor finishes its own setup (version option, default kit) on the first front-end request.
    if (plugins.length > 0) await fetchSite("/");

    let stopped: Promise<void> | undefined;
    return {
      url,
      restUrl: installed.restUrl,
      wordpress: installed.wordpress,
      activePlugins: installed.plugins,
      adminUser,
      adminPassword,
      caPath: tls.caCert,
      wpPath,
      port,
      dir,
      fetch: fetchSite,
      async cli<T>(...args: string[]): Promise<T> {
        const { stdout: out } = await execFileAsync("php", [
          join(REPO_ROOT, "plugin/bin/sitewright-cli.php"),
          `--wp=${wpPath}`,
          ...args,
        ]);
        return JSON.parse(out) as T;
      },
      stop() {
        stopped ??= cleanup();
        return stopped;
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
