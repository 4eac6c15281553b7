/**
 * ENCRYPTION_KEY rotation (docs/deployment.md, "Key rotation"): every stored credential (paired sites' and
 * sandboxes') is opened with the current or a previous key and sealed again under the current one, so the previous
 * key can then be dropped without anyone pairing again. Each row is swapped only if it still holds what was read
 * (a re-pairing racing the rotation wins), so running it twice, or beside a live app, is safe.
 */
import { type CredentialTable, listSealedCredentials, swapSealedCredential } from "@/lib/db/queries";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { isUnreadableSecret, reencryptSecret } from "./crypto";

export type RotationCount = { rotated: number; unreadable: string[] };
export type RotationReport = { sites: RotationCount; sandboxes: RotationCount };

async function rotateTable(table: CredentialTable): Promise<RotationCount> {
  const count: RotationCount = { rotated: 0, unreadable: [] };
  for (const row of await listSealedCredentials({ table })) {
    let sealed: string | undefined;
    try {
      // Both tables bind the sealed value to the row's id (associated data).
      sealed = reencryptSecret(row.credentials, row.id);
    } catch (error) {
      if (!isUnreadableSecret(error)) throw error;
      count.unreadable.push(row.id);
      continue;
    }
    if (!sealed) continue; // under the current key already
    if (await swapSealedCredential({ table, id: row.id, from: row.credentials, to: sealed })) count.rotated += 1;
  }
  return count;
}

/** Re-seals every stored credential under the current ENCRYPTION_KEY; lists the ids no configured key opens. */
export async function rotateStoredCredentials(): Promise<RotationReport> {
  return { sites: await rotateTable("sites"), sandboxes: await rotateTable("sandboxes") };
}

/**
 * At start-up, while ENCRYPTION_KEY_PREVIOUS lists a key: the same rotation, so an operator of the container image
 * (which has no `npm run` tooling) rotates by setting both variables and restarting. Logs what it did; never throws.
 */
export async function rotateCredentialsAtBoot(): Promise<void> {
  if (env().ENCRYPTION_KEY_PREVIOUS.length === 0) return;
  try {
    const report = await rotateStoredCredentials();
    const fields = {
      sites: report.sites.rotated,
      sandboxes: report.sandboxes.rotated,
      unreadableSites: report.sites.unreadable.length,
      unreadableSandboxes: report.sandboxes.unreadable.length,
    };
    if (fields.unreadableSites + fields.unreadableSandboxes > 0) {
      log.warn("some credentials open under no configured ENCRYPTION_KEY: those sites must be paired again", fields);
    } else log.info("stored credentials re-encrypted under the current ENCRYPTION_KEY", fields);
  } catch (error) {
    log.error("could not re-encrypt stored credentials at start-up", { error });
  }
}
