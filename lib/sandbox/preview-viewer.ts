/**
 * Drafts and private items in the owner's preview. WordPress shows an unpublished post only to a signed-in user
 * who may edit it, so a draft the agent made opened in the preview as WordPress's 404. The preview is already the
 * owner's alone (preview.ts), so what it forwards for the owner carries `X-Sitewright-Preview-Viewer: <token>`, and
 * the sandbox's must-use plugin then lets that request's single-item query include drafts, pending, scheduled and
 * private items: no user, no capability, nothing written, and only for singular views (lists stay as visitors see
 * them). The token is an HMAC of the sandbox id under the session secret, so every app instance derives the same
 * one; the sandbox keeps only its SHA-256 (`/data/preview-viewer`), written by its provisioning request, or once
 * per process through the engine by an instance that did not provision it.
 * The browser can never send the header (the proxy drops every `x-sitewright*` header it is given), and a process
 * reaching the container's loopback port directly does not know the token. Nothing here reaches the live site.
 */
import { createHash, createHmac } from "node:crypto";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import type { SandboxExec } from "./preview-assets";

export const PREVIEW_VIEWER_HEADER = "x-sitewright-preview-viewer";

export function previewViewerToken(secret: string, sandboxId: string): string {
  return createHmac("sha256", secret).update(`sitewright preview viewer\0${sandboxId}`).digest("base64url");
}

/** What the sandbox keeps of the token (in /data/preview-viewer): its SHA-256, in hex. */
export function previewViewerHash(secret: string, sandboxId: string): string {
  return createHash("sha256").update(previewViewerToken(secret, sandboxId)).digest("hex");
}

/** Containers whose viewer file this process wrote (or is writing), by container and token hash. */
const written = () => processState("sandbox.preview-viewer", () => new Map<string, Promise<boolean>>());

/**
 * The container already holds the hash: its provisioning request wrote it (containers.ts), so the owner's first
 * preview forwards at once instead of writing it through the engine first (an exec: about 0.15 s on a busy host).
 */
export function previewViewerWritten(containerId: string, hash: string) {
  written().set(`${containerId}:${hash}`, Promise.resolve(true));
}

/**
 * The header to add to the owner's forwarded requests, once the sandbox holds the token's hash; none when it could
 * not be written (the preview still works, unpublished items stay hidden, and the next request tries again).
 */
export async function previewViewerHeader(input: {
  exec: SandboxExec;
  sandbox: { id: string; containerId: string | null };
  secret: string;
}): Promise<Record<string, string>> {
  if (!input.sandbox.containerId) return {};
  const token = previewViewerToken(input.secret, input.sandbox.id);
  const hash = previewViewerHash(input.secret, input.sandbox.id);
  const key = `${input.sandbox.containerId}:${hash}`;
  let done = written().get(key);
  if (!done) {
    done = input
      .exec(input.sandbox.containerId, [
        "sh",
        "-c",
        'umask 077 && printf %s "$1" > /data/preview-viewer.tmp && mv /data/preview-viewer.tmp /data/preview-viewer',
        "sh",
        hash,
      ])
      .then((result) => result.exitCode === 0)
      .catch((error) => {
        log.warn("could not let the preview show unpublished items", { sandboxId: input.sandbox.id, error });
        return false;
      });
    written().set(key, done);
  }
  if (await done) return { [PREVIEW_VIEWER_HEADER]: token };
  written().delete(key);
  return {};
}
