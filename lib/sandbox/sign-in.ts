/**
 * One-time links that sign a sandbox's owner into its wp-admin: valid for two minutes, single use. The sandbox
 * keeps only the link token's SHA-256 (in its tmpfs, read by its must-use plugin).
 */
import { createHash, randomBytes } from "node:crypto";
import type { ExecResult } from "./driver";

export const SIGN_IN_LINK_SECONDS = 120;

/** Runs a command inside the sandbox's container (the containers unit). */
export type SandboxExec = (containerId: string, cmd: string[]) => Promise<ExecResult>;

export async function createSignInLink(
  exec: SandboxExec,
  /** The sandbox's site as the owner's browser reaches it (its preview URL, ending in `/`). */
  sandbox: { containerId: string; siteUrl: string },
  now: Date,
): Promise<{ url: string; expiresAt: string }> {
  const token = randomBytes(32).toString("base64url");
  const expires = Math.floor(now.getTime() / 1000) + SIGN_IN_LINK_SECONDS;
  const hash = createHash("sha256").update(token).digest("hex");
  const result = await exec(sandbox.containerId, [
    "sh",
    "-c",
    'umask 077 && printf %s "$1" > "/data/login/$2"',
    "sh",
    String(expires),
    hash,
  ]);
  if (result.exitCode !== 0) throw new Error(`could not store the sign-in token: ${result.stderr.trim()}`);
  return {
    url: `${sandbox.siteUrl}?sitewright_login=${token}`,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}
