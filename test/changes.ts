/**
 * Test helpers for change sets on the real local WordPress: a person's edit made directly with WordPress (as the
 * site's administrator, through PHP, not through Sitewright's token), and running an operation's write path.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Operation } from "@/lib/agent/operations";
import { writePlanNow, type WriteContext } from "@/lib/agent/writes";
import type { WritePlan } from "@/lib/agent/operations/operation";
import type { SiteClient } from "@/lib/sites/types";
import type { TurnScope } from "@/lib/changes/change-sets";
import { type PlannedItem, reverseChange } from "@/lib/changes/plan";
import { type WrittenItem, writeItems } from "@/lib/sites/items";

const execFileAsync = promisify(execFile);

/** Edits a post as the site's administrator with wp_update_post, in its own PHP process (as wp-admin would). */
export async function humanEditPost(wpPath: string, id: number, fields: Record<string, string>): Promise<void> {
  const code = `
    $_SERVER['HTTP_HOST'] = 'localhost'; $_SERVER['REQUEST_URI'] = '/'; $_SERVER['SERVER_NAME'] = 'localhost';
    define('WP_USE_THEMES', false);
    require $argv[1] . '/wp-load.php';
    $admin = get_user_by('login', 'admin') ?: get_users(array('role' => 'administrator', 'number' => 1))[0];
    wp_set_current_user($admin->ID);
    $fields = json_decode($argv[3], true);
    $data = array('ID' => (int) $argv[2]);
    foreach ($fields as $k => $v) { $data['post_' . $k] = $v; }
    $r = wp_update_post(wp_slash($data), true);
    if (is_wp_error($r)) { fwrite(STDERR, $r->get_error_message()); exit(1); }
  `;
  await execFileAsync("php", ["-r", code, "--", wpPath, String(id), JSON.stringify(fields)]);
}

/** Plans an operation and writes the plan as the agent's write path does for a draft (no click), in a turn. */
export async function writeThroughAgent<Input>(
  context: { scope: TurnScope; client: WriteContext["client"] },
  op: Operation<Input>,
  input: unknown,
  toolCallId = `call_${Math.random().toString(36).slice(2)}`,
) {
  const plan = await op.plan!(context.client, op.input.parse(input));
  return writePlanNow({ ...context, plans: new Map(), emitChange: () => {} }, toolCallId, plan);
}

export type WrittenPlan = Array<{ item: PlannedItem; written: WrittenItem }>;

/** Writes a plan's items as the write path does (one conditional batch), and returns what undo needs. */
export async function writePlan(client: SiteClient, planned: WritePlan): Promise<WrittenPlan> {
  const written = await writeItems(
    client,
    planned.items.map((item) => item.change),
  );
  return planned.items.map((item, index) => ({ item, written: written[index] as WrittenItem }));
}

/** The change-set layer's undo of written items: every item's reverse, newest first, in one conditional batch. */
export function undoWritten(client: SiteClient, done: WrittenPlan) {
  const reverse = [...done].reverse().map(({ item, written }) =>
    reverseChange({
      ref: written.ref,
      action: item.action,
      beforeState: item.beforeState,
      afterState: written.after,
      versionAfter: written.version,
    }),
  );
  return writeItems(client, reverse);
}
