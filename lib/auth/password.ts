/**
 * Password hashing with salted scrypt (RFC 7914). The parameters are stored with each hash so they can be raised
 * later: a hash made with older parameters still verifies and `needsRehash` tells login to upgrade it.
 * Format: `$scrypt$ln=17,r=8,p=1$<salt b64>$<key b64>`.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { availableParallelism } from "node:os";
import { env } from "@/lib/env";

export type ScryptParams = { logN: number; r: number; p: number };
export const CURRENT_PARAMS: ScryptParams = { logN: 17, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/**
 * How many hashes run at once. Each is ~0.5 s of one core on libuv's pool; left alone, four pool threads take every
 * core and the event loop (health checks, every other request) waits for CPU. Keeping one core free bounds that,
 * at the cost of hash throughput on small machines. `PASSWORD_HASH_CONCURRENCY` overrides.
 */
export function hashConcurrency(): number {
  return env().PASSWORD_HASH_CONCURRENCY ?? Math.max(1, availableParallelism() - 1);
}

let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= hashConcurrency()) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** Hashes currently running and queued: for tests and the benchmark. */
export const hashLoad = () => ({ running, waiting: waiting.length });

/** Runs on libuv's thread pool, never on the event loop. Node's default maxmem (32 MiB) rejects N=2^17. */
export function scrypt(
  password: string | Buffer,
  salt: Buffer,
  keyLength: number,
  params: ScryptParams,
): Promise<Buffer> {
  const N = 2 ** params.logN;
  const options: ScryptOptions = {
    N,
    r: params.r,
    p: params.p,
    maxmem: 2 * 128 * N * params.r * params.p + 16 * 1024 * 1024,
  };
  return withHashSlot(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scryptCallback(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))),
      ),
  );
}

export async function hashPassword(password: string, params: ScryptParams = CURRENT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, params);
  return `$scrypt$ln=${params.logN},r=${params.r},p=${params.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

type ParsedHash = { params: ScryptParams; salt: Buffer; key: Buffer };

function parseHash(stored: string): ParsedHash | undefined {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (!match) return undefined;
  const [, logN, r, p, salt, key] = match;
  return {
    params: { logN: Number(logN), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt!, "base64"),
    key: Buffer.from(key!, "base64"),
  };
}

/** Constant-time check. A malformed stored hash never verifies. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed || parsed.key.length !== KEY_LENGTH) return false;
  const candidate = await scrypt(password.normalize("NFKC"), parsed.salt, KEY_LENGTH, parsed.params);
  return timingSafeEqual(candidate, parsed.key);
}

export function needsRehash(stored: string, params: ScryptParams = CURRENT_PARAMS): boolean {
  const parsed = parseHash(stored);
  if (!parsed) return true;
  return parsed.params.logN < params.logN || parsed.params.r < params.r || parsed.params.p < params.p;
}

let dummyHash: Promise<string> | undefined;
/** A hash of nothing anyone knows: checking it makes "no such email" cost the same as a wrong password. */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(24).toString("base64"));
  return dummyHash;
}
