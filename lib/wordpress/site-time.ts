/**
 * A date and time in the site's time zone (what an owner says: "Monday at 9") as the GMT time WordPress stores in
 * `post_date_gmt`, and back. The zone is what `/sitewright/v1/info` reports as `timezone` (wp_timezone_string():
 * an IANA name such as "Europe/Berlin", or a fixed offset such as "+02:00" or "UTC").
 */

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;
const OFFSET = /^([+-])(\d{2}):(\d{2})$/;

/** Milliseconds the zone is ahead of UTC at the instant `utcMs`. */
function offsetAt(utcMs: number, timeZone: string): number {
  const fixed = OFFSET.exec(timeZone);
  if (fixed) return (fixed[1] === "-" ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3])) * 60_000;
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** Whether a zone name is one this runtime knows (or a fixed offset). */
export function isKnownZone(timeZone: string): boolean {
  if (OFFSET.test(timeZone)) return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

const pad = (n: number) => String(n).padStart(2, "0");
const sqlUtc = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
};

/**
 * "2026-12-07 09:00" in `timeZone` → "2026-12-07 08:00:00" (GMT, as WordPress stores it). Null when the text is not
 * a date and time, or names a wall time that does not exist in that zone (skipped by a daylight-saving change).
 */
export function siteLocalToGmt(local: string, timeZone: string): string | null {
  const m = LOCAL.exec(local.trim());
  if (!m || !isKnownZone(timeZone)) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((v) => Number(v ?? 0)) as number[];
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
  if (new Date(wall).getUTCDate() !== day || month! > 12) return null;
  // The offset at the wall time read as UTC is right except within hours of a change: settle it once more.
  let utc = wall - offsetAt(wall, timeZone);
  utc = wall - offsetAt(utc, timeZone);
  if (utc + offsetAt(utc, timeZone) !== wall) return null;
  return sqlUtc(utc);
}

/** "2026-12-07 08:00:00" GMT → "2026-12-07 09:00" in `timeZone`: what the owner reads on the card. */
export function gmtToSiteLocal(gmt: string, timeZone: string): string {
  const m = LOCAL.exec(gmt.trim());
  if (!m || !isKnownZone(timeZone)) return gmt;
  const [year, month, day, hour, minute, second] = m.slice(1).map((v) => Number(v ?? 0)) as number[];
  const utc = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
  return sqlUtc(utc + offsetAt(utc, timeZone)).slice(0, 16);
}
