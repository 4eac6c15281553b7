/**
 * Runs once before any test worker starts: workers are forked after this, so the CA we create here is trusted by
 * every worker (Node reads NODE_EXTRA_CA_CERTS only at process start).
 */
import { existsSync } from "node:fs";
import path from "node:path";

export default async function globalSetup() {
  const tlsModule = path.resolve(import.meta.dirname, "../scripts/lib/tls.ts");
  if (existsSync(tlsModule)) {
    const { ensureTestCa } = (await import(tlsModule)) as {
      ensureTestCa: () => Promise<{ caCert: string }> | { caCert: string };
    };
    const { caCert } = await ensureTestCa();
    process.env.NODE_EXTRA_CA_CERTS = caCert;
  }
}
