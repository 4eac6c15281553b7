/**
 * The engine proxy's entry point (docs/deployment.md, "The sandbox engine"): run in its own container from the app's
 * image by deploy/systemd/sitewright-engine-proxy.service, or by hand:
 *
 *   ENGINE_PROXY_LISTEN=/run/sitewright/engine/engine.sock ENGINE_PROXY_UPSTREAM=/run/podman.sock \
 *     node scripts/engine-proxy.mjs
 *
 * Settings (environment): ENGINE_PROXY_LISTEN (the app's socket; default /run/sitewright/engine/engine.sock),
 * ENGINE_PROXY_UPSTREAM (the engine's socket; default /run/podman.sock), SANDBOX_IMAGE_REPOSITORY,
 * SANDBOX_NETWORK_POOL, ENGINE_PROXY_MAX_SANDBOXES (lib/sandbox/engine-proxy/policy.mjs). Stops on SIGTERM/SIGINT.
 */
import { proxySettings } from "../lib/sandbox/engine-proxy/policy.mjs";
import { startEngineProxy } from "../lib/sandbox/engine-proxy/server.mjs";

const listen = process.env.ENGINE_PROXY_LISTEN || "/run/sitewright/engine/engine.sock";
const upstream = process.env.ENGINE_PROXY_UPSTREAM || "/run/podman.sock";
const proxy = await startEngineProxy({ listen, upstream, settings: proxySettings(process.env) });
process.stdout.write(
  `${JSON.stringify({ time: new Date().toISOString(), level: "info", message: "engine proxy listening", listen, upstream })}\n`,
);
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    proxy.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  });
}
