/**
 * `npm run sandbox:image`: builds the sandbox image when its inputs changed (a few seconds when cached), or
 * checks that SANDBOX_IMAGE exists. Prints progress, then the tag on the last line.
 */
import { sandboxConfig } from "@/lib/sandbox/config";
import { SandboxEngine } from "@/lib/sandbox/engine";
import { defaultImagePaths, ensureSandboxImage } from "@/lib/sandbox/image";

// SITEWRIGHT_CACHE is a machine setting shared with scripts/setup/*.sh, not part of the app's configuration.
const config = sandboxConfig(process.env.SITEWRIGHT_CACHE ? { cacheDir: process.env.SITEWRIGHT_CACHE } : {});
const engine = new SandboxEngine({ dockerHost: config.dockerHost });
const started = Date.now();
try {
  await engine.ping();
  const tag = await ensureSandboxImage({
    engine,
    configuredImage: config.image,
    paths: defaultImagePaths(config.cacheDir),
    progress: (message) => console.error(`sandbox:image: ${message}`),
  });
  console.error(`sandbox:image: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(tag);
} catch (error) {
  console.error(`sandbox:image: failed: ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof Error && error.cause) console.error(error.cause);
  process.exit(1);
}
