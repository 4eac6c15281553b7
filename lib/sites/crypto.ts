/**
 * Site credentials at rest: AES-256-GCM under `ENCRYPTION_KEY` (docs/api.md, "Sites and pairing").
 * Format `v1.<iv>.<tag>.<ciphertext>`, each part base64url; a 12-byte random IV per value. Values sealed under a key
 * listed in `ENCRYPTION_KEY_PREVIOUS` still open; `reencryptSecret` moves one to the current key (scripts/deploy/
 * rotate-keys.ts does it for every stored value; docs/deployment.md, "Key rotation").
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { env } from "../env";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

function key(): Buffer {
  return Buffer.from(env().ENCRYPTION_KEY, "hex");
}

/** The keys that may open a value: the current one first, then ENCRYPTION_KEY_PREVIOUS in the order given. */
function openingKeys(): Buffer[] {
  const { ENCRYPTION_KEY, ENCRYPTION_KEY_PREVIOUS } = env();
  return [ENCRYPTION_KEY, ...ENCRYPTION_KEY_PREVIOUS].map((hex) => Buffer.from(hex, "hex"));
}

/**
 * A sealed value this process cannot open: most often sealed under another `ENCRYPTION_KEY` (the key changed, or a
 * development key was regenerated). Callers decide what that means: a site must be paired again, a pool member
 * is retired.
 */
export class UnreadableSecretError extends Error {
  constructor(cause: unknown) {
    super("A stored secret could not be decrypted with the current ENCRYPTION_KEY.", { cause });
    this.name = "UnreadableSecretError";
  }
}

/** By name, not `instanceof`: Next.js loads this module once per bundle. */
export const isUnreadableSecret = (error: unknown): boolean =>
  error instanceof Error && error.name === "UnreadableSecretError";

const undecryptable = (cause: unknown) => new UnreadableSecretError(cause);

/** `associatedData` (e.g. the site id) is authenticated, not stored: decrypting needs the same value. */
export function encryptSecret(plain: string, associatedData = ""): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key(), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(`${VERSION}\n${associatedData}`, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString("base64url"));
  return [VERSION, ...parts].join(".");
}

/** Throws `UnreadableSecretError` for an unknown version, a malformed blob, a wrong key or any tampering. */
export function decryptSecret(blob: string, associatedData = ""): string {
  return openWith(openingKeys(), blob, associatedData);
}

/**
 * The secret sealed under the current key (a fresh IV), or undefined when the current key seals it already; throws
 * `UnreadableSecretError` as `decryptSecret` when no configured key opens it.
 */
export function reencryptSecret(blob: string, associatedData = ""): string | undefined {
  try {
    openWith([key()], blob, associatedData);
    return undefined;
  } catch {
    return encryptSecret(decryptSecret(blob, associatedData), associatedData);
  }
}

function openWith(keys: Buffer[], blob: string, associatedData: string): string {
  const parts = typeof blob === "string" ? blob.split(".") : [];
  if (parts.length !== 4 || parts[0] !== VERSION) throw undecryptable(new Error("unknown credential format"));
  const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, "base64url")) as [
    Buffer,
    Buffer,
    Buffer,
  ];
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw undecryptable(new Error("malformed credential"));
  let failure: unknown;
  for (const candidate of keys) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", candidate, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(`${VERSION}\n${associatedData}`, "utf8"));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
    } catch (cause) {
      failure ??= cause;
    }
  }
  throw undecryptable(failure);
}
