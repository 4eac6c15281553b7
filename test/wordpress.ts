/**
 * Runs PHP inside a local test WordPress as its administrator, in its own process (as wp-admin or another plugin
 * would act), for arranging a site: content an administrator wrote, options, mu-plugins.
 */
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/**
 * Runs `body` (PHP statements; `$args` holds the JSON-decoded `args`) after loading WordPress as the administrator;
 * whatever the body echoes as its last line is parsed as JSON.
 */
export async function runAsAdmin<T = unknown>(wpPath: string, body: string, args: unknown = null): Promise<T> {
  const script = join(tmpdir(), `sitewright-admin-${randomUUID()}.php`);
  writeFileSync(
    script,
    `<?php
$_SERVER['HTTP_HOST'] = 'localhost'; $_SERVER['REQUEST_URI'] = '/'; $_SERVER['SERVER_NAME'] = 'localhost';
define('WP_USE_THEMES', false);
require $argv[1] . '/wp-load.php';
$admin = get_user_by('login', 'admin') ?: get_users(array('role' => 'administrator', 'number' => 1))[0];
wp_set_current_user($admin->ID);
$args = json_decode($argv[2], true);
${body}
`,
  );
  const { stdout } = await execFileAsync("php", [script, wpPath, JSON.stringify(args)]);
  const last = stdout.trim().split("\n").pop() ?? "null";
  return JSON.parse(last || "null") as T;
}

/** Installs a must-use plugin (a PHP file's text) into a local test WordPress. */
export function installMuPlugin(wpPath: string, name: string, php: string): void {
  const dir = join(wpPath, "wp-content", "mu-plugins");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), php);
}

/**
 * Counts WordPress's updates of the posts a test watches, on a local test WordPress: how a crash test shows each page
 * was written exactly once. `watch` starts a count (and forgets the last), `counts` reads it by post id, `stop` ends.
 */
export function postWriteCounter(wpPath: string) {
  installMuPlugin(
    wpPath,
    "sitewright-test-write-counter.php",
    `<?php
add_action('post_updated', function ($id) {
  $watched = get_option('sw_test_write_watch', array());
  if (!in_array($id, $watched, true)) { return; }
  $counts = get_option('sw_test_write_counts', array());
  $counts[$id] = ($counts[$id] ?? 0) + 1;
  update_option('sw_test_write_counts', $counts, false);
}, 10, 1);
`,
  );
  return {
    watch: (ids: number[]) =>
      runAsAdmin(
        wpPath,
        "update_option('sw_test_write_watch', $args, false); delete_option('sw_test_write_counts');",
        ids,
      ),
    counts: () =>
      runAsAdmin<Record<string, number>>(
        wpPath,
        "echo json_encode((object) get_option('sw_test_write_counts', array()));",
      ),
    stop: () => runAsAdmin(wpPath, "delete_option('sw_test_write_watch');"),
  };
}
