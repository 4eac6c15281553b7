/**
 * The cheap parts of "the docs are true", checked by machine (issue #21): README.md and docs/*.md link only to
 * files and headings that exist, name only repository paths that exist and only environment variables lib/env.ts
 * reads, and carry measured figures only in docs/performance.md. `.env.example` documents exactly what lib/env.ts
 * reads; code names in backticks exist in the code. What a route answers or a test proves is checked by hand.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema } from "@/lib/env";

const root = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const DOCS = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const withoutCodeBlocks = (text: string) => text.replace(/^```[\s\S]*?^```/gm, "");
const ENV_NAMES = new Set(Object.keys(envSchema.shape));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutCodeBlocks(read(file)).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

describe("the docs' links", () => {
  it("point at files that exist, and at headings those files have", () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      for (const [, href] of withoutCodeBlocks(read(doc)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(href!)) continue; // https:, mailto:
        const [file, anchor] = href!.split("#");
        const target = file ? path.posix.join(path.posix.dirname(doc), file) : doc;
        if (!existsSync(path.join(root, target))) broken.push(`${doc}: ${href} (no such file)`);
        else if (anchor && target.endsWith(".md") && !headingAnchors(target).has(anchor))
          broken.push(`${doc}: ${href} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the README\'s "Where things are"', () => {
  it("names every folder at the top of the repository and every folder of lib/, and only folders that exist", () => {
    const section = read("README.md").split("## Where things are")[1]!.split("\n## ")[0]!;
    const named = new Set(
      [...section.matchAll(/^\| ([^|]+)\|/gm)].flatMap(([, cell]) =>
        [...cell!.matchAll(/`([^`]+)`/g)].map(([, name]) => name!.replace(/\/$/, "")),
      ),
    );
    const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n");
    const folders = new Set(
      tracked.flatMap((file) => {
        const parts = file.split("/");
        if (parts.length < 2) return [];
        return parts[0] === "lib" && parts.length > 2 ? [parts[0], `lib/${parts[1]}`] : [parts[0]!];
      }),
    );
    expect([...folders].filter((folder) => !named.has(folder)).sort()).toEqual([]);
    expect([...named].filter((folder) => !existsSync(path.join(root, folder))).sort()).toEqual([]);
  });
});

/** Paths the docs name that are made at run time, never committed. */
const GENERATED_PATHS: Record<string, string> = {
  "app/bench/empty/route.ts": "bench/lib/app.ts writes it into its copy of the app under .cache/bench-app",
};

const REPO_PATH =
  /^(?:(?:app|lib|test|e2e|bench|scripts|plugin|deploy|docs|drizzle|public)\/\S*|server\.mjs|proxy\.ts|instrumentation\.ts|next\.config\.ts|package\.json|\.env\.example|vitest(?:\.kubernetes)?\.config\.ts|playwright(?:\.sandbox)?\.config\.ts)$/;

describe("the docs' file paths", () => {
  it("name files and folders that exist, wherever a backticked path looks like one of ours", () => {
    const missing: string[] = [];
    for (const doc of DOCS) {
      for (const [, code] of withoutCodeBlocks(read(doc)).matchAll(/`([^`\n]+)`/g)) {
        const candidate = code!.trim();
        if (!REPO_PATH.test(candidate) || /[*<>…{}$]/.test(candidate)) continue; // globs and placeholders
        if (candidate in GENERATED_PATHS) continue;
        if (!existsSync(path.join(root, candidate))) missing.push(`${doc}: ${candidate}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("the docs' relative paths", () => {
  it("stay inside this repository and name what exists, code blocks included", () => {
    const outside: string[] = [];
    for (const doc of DOCS) {
      for (const [, relative] of read(doc).matchAll(/(?<![\w/.])(\.\.?\/[\w.\-/]+)/g)) {
        const target = path.resolve(root, path.dirname(doc), relative!.replace(/[.,:;]+$/, "").split("#")[0]!);
        if (!target.startsWith(`${root}/`) || !existsSync(target)) outside.push(`${doc}: ${relative}`);
      }
    }
    expect(outside).toEqual([]);
  });
});

describe("the docs' code names", () => {
  it("name functions, classes, fields and codes that the code has (camelCase, snake_case, Class::method)", () => {
    const sources = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
      .split("\n")
      .filter((file) => /\.(ts|tsx|mjs|php|sh|json|ya?ml|service|socket)$/.test(file) && !file.startsWith("docs/"))
      .filter((file) => existsSync(path.join(root, file)))
      .map((file) => read(file))
      .join("\n");
    const unknown: string[] = [];
    for (const doc of DOCS) {
      for (const [, code] of withoutCodeBlocks(read(doc)).matchAll(/`([^`\n]+)`/g)) {
        const name = code!.trim().replace(/\(.*\)$/, "");
        if (!/^[A-Za-z_]\w*(?:(?:::|\.)[A-Za-z_]\w*)*$/.test(name)) continue;
        if (!/[a-z][A-Z]|::|[a-z]_|_[a-z]/.test(name)) continue; // plain words and CONSTANTS are checked elsewhere
        const missing = name.split(/::|\./).filter((part) => part.length > 3 && !sources.includes(part));
        if (missing.length > 0) unknown.push(`${doc}: ${name}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});

/**
 * Upper-case names in the docs that are not our environment variables, each with the file that uses it (checked
 * below, so this list cannot name what no longer exists).
 */
const NOT_OUR_ENV: Record<string, { usedIn: string; what: string }> = {
  NODE_EXTRA_CA_CERTS: { usedIn: "test/global-setup.ts", what: "Node's own: trusts the local site's test CA" },
  TEST_DATABASE_ADMIN_URL: { usedIn: "lib/db/testing.ts", what: "tests and bench only: where test databases are made" },
  PHP_CLI_SERVER_WORKERS: { usedIn: "scripts/site-local/index.ts", what: "PHP's built-in server" },
  SITEWRIGHT_IMAGE: { usedIn: "deploy/systemd/sitewright.service", what: "the systemd unit's, not the app's" },
  WP_HTTP_BLOCK_EXTERNAL: { usedIn: "lib/sandbox/image/wp-config.ts", what: "a wp-config.php constant" },
  WP_UNINSTALL_PLUGIN: { usedIn: "plugin/uninstall.php", what: "a WordPress constant" },
  VALID_STYLES: {
    usedIn: "plugin/includes/items/kinds/class-sitewright-item-kind-global-styles.php",
    what: "WP_Theme_JSON's constant",
  },
  WP_DEBUG: { usedIn: "plugin/tests/bootstrap.php", what: "a wp-config.php constant the plugin's tests may turn on" },
  SITEWRIGHT_TEST_WP_DEBUG: { usedIn: "plugin/tests/bootstrap.php", what: "the plugin tests' own switch, run by hand" },
  SITEWRIGHT_TEST_WP_TREE: { usedIn: "plugin/tests/bootstrap.php", what: "the plugin tests' WordPress tree, by hand" },
  VITEST_MAX_WORKERS: { usedIn: "vitest.config.ts", what: "the suite's own: how many files run side by side" },
  SITEWRIGHT_E2E_STATE: { usedIn: "e2e/support/state.ts", what: "the suite's own: where a config's run state is" },
  SITEWRIGHT_E2E_MIN_SLOWDOWN: { usedIn: "e2e/support/waits.ts", what: "the suite's own: the specs' least slowdown" },
  SITEWRIGHT_BROWSER_NETNS: {
    usedIn: "scripts/chromium-isolated.sh",
    what: "the end-to-end specs' own: Chromium's network namespace",
  },
  SLOW_FIRST: { usedIn: "test/sequencer.ts", what: "the files vitest starts first" },
  ERR_NETWORK_CHANGED: { usedIn: "e2e/support/browser-network.ts", what: "Chromium's error, not a variable" },
  ERR_SSL_PROTOCOL_ERROR: { usedIn: "e2e/support/browser-network.ts", what: "Chromium's error, not a variable" },
  TEST_WALL_SECONDS: { usedIn: "scripts/test-summary.mjs", what: "the suite's own: the run's wall time" },
  SITEWRIGHT_WORDPRESS: { usedIn: "scripts/site-local/index.ts", what: "the tests' WordPress version (6.1 or 7.1)" },
  SITEWRIGHT_CHECK_WORDPRESS: { usedIn: "scripts/check-plugin.sh", what: "the versions PHPUnit runs on" },
  SITEWRIGHT_FIXTURES: { usedIn: "scripts/setup/wordpress.sh", what: "the shared fixtures folder" },
  SITEWRIGHT_CORE_DOWNLOADS: { usedIn: "scripts/setup/wordpress.sh", what: "where WordPress releases download from" },
  SITEWRIGHT_PLUGIN_DOWNLOADS: { usedIn: "scripts/setup/wordpress.sh", what: "where plugins download from" },
  WPSEO_VERSION: {
    usedIn: "plugin/includes/items/kinds/class-sitewright-item-kind-seo.php",
    what: "Yoast SEO's version constant",
  },
  RANK_MATH_VERSION: {
    usedIn: "plugin/includes/items/kinds/class-sitewright-item-kind-seo.php",
    what: "Rank Math's version constant",
  },
  SEOPRESS_VERSION: {
    usedIn: "plugin/includes/items/kinds/class-sitewright-item-kind-seo.php",
    what: "SEOPress's version constant",
  },
  THE_SEO_FRAMEWORK_VERSION: {
    usedIn: "plugin/includes/items/kinds/class-sitewright-item-kind-seo.php",
    what: "The SEO Framework's version constant",
  },
  AIOSEO_VERSION: {
    usedIn: "plugin/includes/items/kinds/class-sitewright-item-kind-seo.php",
    what: "All in One SEO's version constant",
  },
  WP_HOME: { usedIn: "lib/sandbox/image/wp-config.ts", what: "a wp-config.php constant" },
  WP_SITEURL: { usedIn: "lib/sandbox/image/wp-config.ts", what: "a wp-config.php constant" },
  DISALLOW_FILE_MODS: { usedIn: "scripts/site-local/index.ts", what: "a wp-config.php constant" },
  DISALLOW_UNFILTERED_HTML: { usedIn: "plugin/includes/class-sitewright-agent-user.php", what: "a WordPress constant" },
  CONCATENATE_SCRIPTS: { usedIn: "docs/sandboxes.md", what: "a WordPress constant the docs suggest, not set" },
  DB_DIR: { usedIn: "lib/wordpress/wp-config.template.php", what: "a wp-config.php constant (SQLite)" },
  DB_FILE: { usedIn: "lib/wordpress/wp-config.template.php", what: "a wp-config.php constant (SQLite)" },
  AUTH_KEY: { usedIn: "plugin/includes/class-sitewright-crypto.php", what: "a wp-config.php salt" },
  SECURE_AUTH_KEY: { usedIn: "plugin/includes/class-sitewright-crypto.php", what: "a wp-config.php salt" },
  SITEWRIGHT_CA_FILE: {
    usedIn: "plugin/includes/class-sitewright-pairing.php",
    what: "the plugin's wp-config.php constant",
  },
  SITEWRIGHT_ALLOW_HTTP_SERVICE: {
    usedIn: "plugin/includes/class-sitewright-pairing.php",
    what: "the plugin's wp-config.php constant",
  },
  SITEWRIGHT_SANDBOX: { usedIn: "plugin/includes/class-sitewright-snapshot-import.php", what: "the plugin's constant" },
  HTTP_HOST: { usedIn: "lib/sandbox/image/wp-config.ts", what: "a PHP server variable" },
  HTTP_AUTHORIZATION: { usedIn: "plugin/includes/class-sitewright-auth.php", what: "a PHP server variable" },
  REDIRECT_HTTP_AUTHORIZATION: { usedIn: "plugin/includes/class-sitewright-auth.php", what: "a PHP server variable" },
  QUERY_STRING: { usedIn: "plugin/includes/class-sitewright-auth.php", what: "a PHP server variable" },
  REQUEST_URI: { usedIn: "lib/sandbox/image/wp-config.ts", what: "a PHP server variable" },
  SERVER_PORT: { usedIn: "lib/sandbox/image/wp-config.ts", what: "a PHP server variable" },
  PHP_SAPI: { usedIn: "plugin/bin/sitewright-cli.php", what: "a PHP constant" },
  ERROR_STATUS: { usedIn: "lib/errors.ts", what: "a constant in our code" },
  SIGNED_REQUEST_ERRORS: { usedIn: "lib/vocabulary.ts", what: "a constant in our code" },
  MAX_FORWARDED_BODY: { usedIn: "lib/sandbox/preview.ts", what: "a constant in our code" },
  MIGRATION_LOCK_KEY: { usedIn: "lib/db/index.ts", what: "a constant in our code" },
  SANDBOX_LIMITS: { usedIn: "lib/sandbox/engine.ts", what: "a constant in our code" },
  WINDOW_MS: { usedIn: "plugin/includes/class-sitewright-auth.php", what: "a constant in the plugin" },
  HOSTILE_CONTENT: { usedIn: "lib/agent/testing/injection-corpus.ts", what: "a constant in our tests" },
  POLITE_CONTENT: { usedIn: "lib/agent/testing/injection-corpus.ts", what: "a constant in our tests" },
  SITEWRIGHT_K8S_BIN: { usedIn: "scripts/setup/kubernetes.sh", what: "the test cluster's server binaries" },
  SITEWRIGHT_K8S_DIR: { usedIn: "scripts/setup/kubernetes.sh", what: "the test cluster's state directory" },
  CAP_SYS_RESOURCE: { usedIn: "scripts/setup/kubernetes.sh", what: "a Linux capability root lacks here" },
  BASE_IMAGE: { usedIn: "Containerfile", what: "the Containerfile's build argument" },
  CONSENT_PROBLEMS: { usedIn: "lib/oauth/authorize.ts", what: "a constant in our code" },
  SANDBOX_IMAGE_REPOSITORY: { usedIn: "lib/sandbox/engine-proxy/policy.mjs", what: "the engine proxy's setting" },
  ENGINE_PROXY_MAX_SANDBOXES: { usedIn: "lib/sandbox/engine-proxy/policy.mjs", what: "the engine proxy's setting" },
  ENGINE_SOCKET: { usedIn: "deploy/compose.yaml", what: "compose.yaml's setting: the engine's API socket" },
  ENGINE_SOCKET_GID: { usedIn: "deploy/compose.yaml", what: "compose.yaml's setting: that socket's group id" },
  ENGINE_PROXY_DIR: { usedIn: "deploy/compose.yaml", what: "compose.yaml's setting: the proxy's socket folder" },
};

describe("the environment variables the docs name", () => {
  it("are read by lib/env.ts, or are listed as something else that exists", () => {
    const unknown: string[] = [];
    for (const doc of DOCS) {
      for (const [name] of read(doc).matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)) {
        if (!ENV_NAMES.has(name) && !(name in NOT_OUR_ENV)) unknown.push(`${doc}: ${name}`);
      }
    }
    expect([...new Set(unknown)]).toEqual([]);
  });

  it("lists as something else only names that file still uses", () => {
    const stale = Object.entries(NOT_OUR_ENV)
      .filter(([name, { usedIn }]) => !existsSync(path.join(root, usedIn)) || !read(usedIn).includes(name))
      .map(([name, { usedIn }]) => `${name} (${usedIn})`);
    expect(stale).toEqual([]);
  });
});

describe(".env.example", () => {
  const variables = (file: string) =>
    read(file)
      .split("\n")
      .map((line, index, lines) => ({ line, index, lines }))
      .filter(({ line }) => /^[A-Z][A-Z0-9_]*=/.test(line));

  it("lists every variable lib/env.ts reads, and nothing else", () => {
    const listed = variables(".env.example").map(({ line }) => line.slice(0, line.indexOf("=")));
    expect([...listed].sort()).toEqual([...ENV_NAMES].sort());
  });

  it("gives each variable a comment in the block it sits in", () => {
    const uncommented = variables(".env.example")
      .filter(({ index, lines }) => {
        for (let i = index - 1; i >= 0 && lines[i]!.trim() !== ""; i--) if (lines[i]!.startsWith("#")) return false;
        return true;
      })
      .map(({ line }) => line);
    expect(uncommented).toEqual([]);
  });

  it("and the operator's template (deploy/sitewright.env.example) sets only variables lib/env.ts reads", () => {
    const names = read("deploy/sitewright.env.example")
      .split("\n")
      .map((line) => /^#?\s?([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    expect(names.filter((name) => !ENV_NAMES.has(name))).toEqual([]);
  });
});

/**
 * Numbers with a unit that are limits or settings, not measurements: allowed where they stand, with the reason.
 * Everything measured (by `npm run bench` or by hand) lives in docs/performance.md and is linked from elsewhere.
 */
const LIMITS_NOT_FIGURES: Record<string, Record<string, string>> = {
  "docs/agent.md": {
    "8 KiB": "a chat message's limit (MAX_MESSAGE_BYTES)",
    "8 MB": "the largest image view_image fetches (lib/agent/vision.ts)",
  },
  "docs/api.md": {
    "64 KiB": "the body limit (MAX_BODY_BYTES) and a diff side's cap (DIFF_SIDE_MAX_BYTES)",
    "10 ×": "the per-account rate limit's factor (ACCOUNT_LIMIT_FACTOR)",
    "50 ×": "the redeem bucket that was removed, named to say why",
    "200 KB": "what app/sites/[id]/changes/route.test.ts asserts",
    "1 MB": "what app/sites/[id]/changes/route.test.ts asserts",
  },
  "docs/change-sets.md": { "64 KiB": "a diff side's cap (DIFF_SIDE_MAX_BYTES)" },
  "docs/product.md": { "200 KiB": "the chat page's first-load budget, a goal" },
  "docs/sandboxes.md": {
    "16 MiB": "the preview's body limit (MAX_FORWARDED_BODY)",
    "256 MiB": "a sandbox's memory limit (SANDBOX_LIMITS)",
    "25 MB": "the media proxy's file cap",
    "256 MB": "the media cache's cap",
    "64 MB": "the body a preview test sends",
    "24 MiB": "the memory growth a preview test allows",
  },
  "docs/security.md": {
    "16 MiB": "the preview's body limit",
    "64 MB": "the body a preview test sends",
    "64 KiB": "a diff side's cap",
    "200 KB": "what a change-set test asserts",
    "1 MB": "what a change-set test asserts",
    "10×": "the per-account rate limit's factor",
  },
  "docs/media.md": {
    "10 MiB": "the attachment limit's default (UPLOAD_MAX_BYTES)",
    "16 MiB": "the plugin's hard cap on one file (Sitewright_Media::HARD_MAX_BYTES)",
    "120 KB": "an example of the line the model reads",
    "512 KiB": "a site picture's cap for the queue's thumbnails (lib/media/site-images.ts)",
  },
  "docs/signing.md": { "10 MiB": "safeFetch's response cap" },
  "docs/verification.md": { "5 MiB": "the visitor's look's response cap (PAGE_LIMITS)" },
};

const FIGURE = /(?<![\w.,])\d[\d,]*(?:\.\d+)?\s?(?:ms|µs|×|KiB|KB|kB|MiB|MB|GiB|GB)(?!\w)/g;
const PERCENTILE = /\bp(?:50|90|95|99)\s*[≈~]?\s*\d[\d.,]*\s?\S*/g;

describe("benchmark figures", () => {
  it("appear only in docs/performance.md; elsewhere only limits and settings, each allowed by name", () => {
    const figures: string[] = [];
    for (const doc of DOCS.filter((file) => file !== "docs/performance.md")) {
      const allowed = LIMITS_NOT_FIGURES[doc] ?? {};
      for (const [match] of [...read(doc).matchAll(FIGURE), ...read(doc).matchAll(PERCENTILE)]) {
        if (!(match in allowed)) figures.push(`${doc}: ${match}`);
      }
    }
    expect(figures).toEqual([]);
  });
});
