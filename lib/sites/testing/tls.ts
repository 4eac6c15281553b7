/** A throwaway CA and server certificate for loopback https servers in unit tests (made with openssl). */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export type TestCertificates = { ca: string; cert: string; key: string };

/** Creates a CA and a certificate for `names` (DNS names or IPs) signed by it. Takes about 0.1 s. */
export function makeTestCertificates(names: string[]): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), "sw-tls-"));
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  try {
    run(
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=Sitewright unit test CA",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
    );
    run(
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-subj",
      `/CN=${names[0]}`,
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
    );
    const san = names.map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(",");
    writeFileSync(path.join(dir, "ext.cnf"), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
    run(
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      "ext.cnf",
      "-out",
      "server.pem",
    );
    const read = (name: string) => readFileSync(path.join(dir, name), "utf8");
    return { ca: read("ca.pem"), cert: read("server.pem"), key: read("server.key") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
