/**
 * Periodic sweeps every app instance runs: each is idempotent and cheap (single DELETE/UPDATE statements), so
 * several instances running them at once is harmless.
 */
import { nowMs, now } from "@/lib/clock";
import {
  deleteDeadOAuthTokens,
  deleteExpiredAccountTokens,
  deleteExpiredUploads,
  deleteRateLimitsBefore,
  deleteSessionsIdleOrExpired,
} from "@/lib/db/queries";
import { SESSION_IDLE_MS } from "@/lib/auth/session";
import { sweepDeadPairings } from "@/lib/sites/sites";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export async function runSweeps() {
  const at = now();
  const sessions = await deleteSessionsIdleOrExpired({ now: at, idleBefore: new Date(at.getTime() - SESSION_IDLE_MS) });
  const pairings = await sweepDeadPairings();
  await deleteRateLimitsBefore({ windowStart: nowMs() - 60 * 60 * 1000 });
  // A day after they expired, MCP clients' tokens and codes are only dead weight (docs/mcp.md).
  const oauthTokens = await deleteDeadOAuthTokens({ before: new Date(at.getTime() - 24 * 60 * 60 * 1000) });
  // Mailed links past their expiry can only answer token_expired, which an unknown token's invalid_token does as well.
  const accountTokens = await deleteExpiredAccountTokens({ now: at });
  // Attachments nobody used, and previews of used ones past their keeping time (docs/media.md).
  const uploads = await deleteExpiredUploads({ now: at });
  return { sessions, ...pairings, oauthTokens, accountTokens, uploads };
}

type Holder = { timer?: NodeJS.Timeout };
const holder = processState<Holder>("maintenance", () => ({}));

export function startMaintenance() {
  if (holder.timer) return;
  const tick = () =>
    runSweeps()
      .then((swept) => log.debug("sweeps done", swept))
      .catch((error) => log.warn("sweeps failed; will retry", { error }));
  void tick();
  holder.timer = setInterval(tick, SWEEP_INTERVAL_MS);
  holder.timer.unref();
}
