/**
 * `npm run keys:rotate`: after setting the new ENCRYPTION_KEY and the old one in ENCRYPTION_KEY_PREVIOUS, re-seals
 * every stored credential under the new key (docs/deployment.md, "Key rotation"). Reads the app's configuration
 * (.env and the environment) and needs DATABASE_URL. Prints one JSON line: what was rotated and what no key opens.
 */
import { env } from "@/lib/env";
import { getDatabase } from "@/lib/db";
import { rotateStoredCredentials } from "@/lib/sites/key-rotation";

const { DATABASE_URL, ENCRYPTION_KEY_PREVIOUS } = env();
if (!DATABASE_URL) {
  console.error("keys:rotate: DATABASE_URL is empty: an in-memory app keeps nothing to rotate.");
  process.exit(1);
}
const handle = await getDatabase();
try {
  const report = await rotateStoredCredentials();
  console.log(JSON.stringify({ ...report, previousKeys: ENCRYPTION_KEY_PREVIOUS.length }));
  const unreadable = report.sites.unreadable.length + report.sandboxes.unreadable.length;
  if (unreadable > 0) {
    console.error(
      `keys:rotate: ${unreadable} credential(s) open under no configured key; those sites must be paired again.`,
    );
    process.exitCode = 2;
  }
} finally {
  await handle.close();
}
