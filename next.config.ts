import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native and WASM server packages stay outside the bundle.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "dockerode",
    "postgres",
    "ssh2",
    "cpu-features",
    "@kubernetes/client-node",
  ],
  typescript: { ignoreBuildErrors: false },
  experimental: {
    // Next.js loads every route's server code at start by default: the MCP SDK, the model's SDK, the engine's client
    // and the rest would sit in memory on a server that never serves those routes. Each route loads on its first
    // request instead (issue 39: ≤ 300 MiB on PostgreSQL after the bench; docs/performance.md, "Memory").
    preloadEntriesOnStart: false,
    // Next.js 16.4 keeps Turbopack's dev cache on disk (.next/dev/cache/turbopack) across `next dev` sessions. Restored
    // after a restart with other environment variables, it served chunk lists whose versions the new session could not
    // diff: every HMR subscription got a Turbopack `restart` and pages reloaded in a loop until `.next` was deleted.
    // Off, each dev session compiles from scratch (docs/operations.md, "The dev server's reload loop").
    turbopackFileSystemCacheForDev: false,
  },
  // WordPress inside a sandbox preview (/preview/<id>/…) needs its trailing slashes ("/wp-admin/") as they are.
  skipTrailingSlashRedirect: true,
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
      // The change set view shows a sandbox's page in an iframe of our own pages.
      { source: "/preview/:path*", headers: [{ key: "X-Frame-Options", value: "SAMEORIGIN" }] },
    ];
  },
};

export default nextConfig;
