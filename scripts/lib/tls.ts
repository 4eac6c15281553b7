/**
 * A private CA and a `localhost` certificate for the local https WordPress and the test run.
 * Made once with openssl and cached in `.cache/tls/` (gitignored); synchronous so a vitest globalSetup or any
 * script can call it before anything else starts. Clients trust it through `NODE_EXTRA_CA_CERTS=<caCert>`.
 */
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export type TestCa = {
  /** The CA certificate (PEM): what clients trust. */
  caCert: string;
  /** The leaf certificate (PEM) for localhost, 127.0.0.1 and ::1, signed by the CA. */
  cert: string;
  /** The leaf's private key (PEM). */
  key: string;
};

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DEFAULT_DIR = join(REPO_ROOT, ".cache", "tls");
const MIN_REMAINING_MS = 7 * 24 * 3600 * 1000;

function paths(dir: string): TestCa {
  return { caCert: join(dir, "ca.crt"), cert: join(dir, "localhost.crt"), key: join(dir, "localhost.key") };
}

function isUsable(ca: TestCa): boolean {
  if (![ca.caCert, ca.cert, ca.key].every((file) => existsSync(file))) return false;
  try {
    const root = new X509Certificate(readFileSync(ca.caCert));
    const leaf = new X509Certificate(readFileSync(ca.cert));
    const soon = Date.now() + MIN_REMAINING_MS;
    return leaf.verify(root.publicKey) && Date.parse(leaf.validTo) > soon && Date.parse(root.validTo) > soon;
  } catch {
    return false;
  }
}

function openssl(args: string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

function generate(into: string): void {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  openssl(
    [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "3650",
      "-subj",
      "/CN=Sitewright Test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ],
    into,
  );
  openssl(["req", ...ec, "-keyout", "localhost.key", "-out", "localhost.csr", "-subj", "/CN=localhost"], into);
  writeFileSync(
    join(into, "leaf.ext"),
    [
      "basicConstraints=CA:FALSE",
      "keyUsage=critical,digitalSignature,keyEncipherment",
      "extendedKeyUsage=serverAuth",
      "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
      "",
    ].join("\n"),
  );
  openssl(
    [
      "x509",
      "-req",
      "-in",
      "localhost.csr",
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "localhost.crt",
      "-days",
      "820",
      "-extfile",
      "leaf.ext",
    ],
    into,
  );
}

/**
 * Returns the cached CA and leaf, creating them when missing, invalid or about to expire.
 * Safe when several processes call it at once: each generates into its own directory; the first rename wins.
 */
export function ensureTestCa(options: { dir?: string } = {}): TestCa {
  const dir = options.dir ?? DEFAULT_DIR;
  const ca = paths(dir);
  if (isUsable(ca)) return ca;

  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.tmp-`);
  try {
    generate(staging);
    if (existsSync(dir) && !isUsable(ca)) {
      const stale = `${dir}.old-${process.pid}-${Date.now()}`;
      renameSync(dir, stale);
      rmSync(stale, { recursive: true, force: true });
    }
    try {
      // Renaming onto an existing non-empty directory fails: whoever renames first wins, the others use theirs.
      renameSync(staging, dir);
    } catch (error) {
      if (!isUsable(ca)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (!isUsable(ca)) throw new Error(`Could not create a usable test CA in ${dir}`);
  return ca;
}
