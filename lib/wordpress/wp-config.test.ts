/**
 * The one WordPress configuration: each place that writes one (sandbox image, local site, PHPUnit bootstrap) fills
 * the same template, and the result is a wp-config.php that PHP loads with the constants each place needs.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sandboxWpConfig } from "@/lib/sandbox/image/wp-config";
import { renderWpConfig } from "./wp-config";

const dir = mkdtempSync(join(tmpdir(), "sitewright-wp-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads a wp-config.php whose wp-settings.php is a stub that prints the constants WordPress would see. */
function load(config: string, env: Record<string, string> = {}): Record<string, unknown> {
  const at = mkdtempSync(join(dir, "site-"));
  writeFileSync(join(at, "wp-config.php"), config);
  writeFileSync(
    join(at, "wp-settings.php"),
    "<?php echo json_encode( array_merge( get_defined_constants( true )['user'], array( 'table_prefix' => $GLOBALS['table_prefix'] ) ) );",
  );
  execFileSync("php", ["-l", join(at, "wp-config.php")]);
  return JSON.parse(
    execFileSync("php", [join(at, "wp-config.php")], { env: { ...process.env, HTTP_HOST: "", ...env } }).toString(),
  );
}

describe("the shared wp-config template", () => {
  it("gives the local site its database, fresh salts and settings, leaving out what it is not asked for", () => {
    const constants = load(
      renderWpConfig({
        purpose: "test",
        dbDir: "/tmp/db it's/",
        dbFile: "wordpress.sqlite",
        constants: { DISALLOW_FILE_MODS: false, SITEWRIGHT_CA_FILE: "/ca.pem", SITEWRIGHT_SANDBOX: undefined },
      }),
    );
    expect(constants).toMatchObject({
      DB_ENGINE: "sqlite",
      DB_DIR: "/tmp/db it's/",
      DB_FILE: "wordpress.sqlite",
      DISALLOW_FILE_MODS: false,
      SITEWRIGHT_CA_FILE: "/ca.pem",
      table_prefix: "wp_",
    });
    expect(constants).not.toHaveProperty("SITEWRIGHT_SANDBOX");
    expect(String(constants.AUTH_KEY)).toHaveLength(64);
    expect(constants.AUTH_KEY).not.toBe(constants.NONCE_SALT);
  });

  it("gives the sandbox image its per-container salts, loopback-only URL and sandbox flags", () => {
    const salts = join(dir, "salts.php");
    writeFileSync(salts, "<?php define( 'AUTH_KEY', 'from-the-container' );");
    const forged = load(sandboxWpConfig(), { SITEWRIGHT_SALTS_FILE: salts, HTTP_HOST: "evil.example:8080" });
    expect(forged).toMatchObject({
      AUTH_KEY: "from-the-container",
      WP_HOME: "http://127.0.0.1",
      DB_DIR: "/data/database/",
      DB_FILE: ".ht.sqlite",
      SITEWRIGHT_SANDBOX: true,
      DISALLOW_FILE_MODS: true,
      WP_HTTP_BLOCK_EXTERNAL: true,
    });
    expect(load(sandboxWpConfig(), { SITEWRIGHT_SALTS_FILE: salts, HTTP_HOST: "localhost:49152" }).WP_SITEURL).toBe(
      "http://localhost:49152",
    );
  });

  it("lets the sandbox take its URL from a loopback or private address literal (a pod's IP), and from nothing else", () => {
    const salts = join(dir, "salts.php");
    writeFileSync(salts, "<?php define( 'AUTH_KEY', 'from-the-container' );");
    const siteUrl = (host: string) =>
      load(sandboxWpConfig(), { SITEWRIGHT_SALTS_FILE: salts, HTTP_HOST: host }).WP_SITEURL;
    for (const host of ["127.0.0.2:8080", "10.244.7.5:8080", "172.31.255.1:8080", "192.168.1.20", "[fd00::5]:8080"]) {
      expect(siteUrl(host), host).toBe(`http://${host}`);
    }
    for (const host of [
      "8.8.8.8:8080",
      "172.32.0.1:8080",
      "10.0.0.256:8080",
      "[fc::1]:8080",
      "[2001:db8::1]:8080",
      "10.0.0.1.evil.example",
    ]) {
      expect(siteUrl(host), host).toBe("http://127.0.0.1");
    }
  });

  it("is filled the same way by the PHP twin the PHPUnit bootstrap uses", () => {
    const rendered = execFileSync("php", [
      "-r",
      `require 'lib/wordpress/render-wp-config.php'; echo sitewright_render_wp_config( 'phpunit', '/tmp/x/', 'w.sqlite', array( 'SITEWRIGHT_SANDBOX' => true, 'WP_DEBUG' => false ) );`,
    ]).toString();
    expect(load(rendered)).toMatchObject({
      DB_DIR: "/tmp/x/",
      DB_FILE: "w.sqlite",
      SITEWRIGHT_SANDBOX: true,
      WP_DEBUG: false,
    });
  });
});
