import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gmtToSiteLocal, siteLocalToGmt } from "./site-time";

describe("site time", () => {
  it("turns the owner's wall time into WordPress's GMT, in IANA zones, fixed offsets and UTC", () => {
    expect(siteLocalToGmt("2026-12-07 09:00", "Europe/Berlin")).toBe("2026-12-07 08:00:00");
    expect(siteLocalToGmt("2026-07-06T09:00", "Europe/Berlin")).toBe("2026-07-06 07:00:00");
    expect(siteLocalToGmt("2026-12-07 09:00", "America/New_York")).toBe("2026-12-07 14:00:00");
    expect(siteLocalToGmt("2026-12-07 09:00", "+05:30")).toBe("2026-12-07 03:30:00");
    expect(siteLocalToGmt("2026-12-07 09:00", "-03:00")).toBe("2026-12-07 12:00:00");
    expect(siteLocalToGmt("2026-12-07 09:00", "UTC")).toBe("2026-12-07 09:00:00");
  });

  it("refuses what is not a time there: bad text, an unknown zone, a day that does not exist, a skipped hour", () => {
    expect(siteLocalToGmt("Monday at 9", "UTC")).toBeNull();
    expect(siteLocalToGmt("2026-12-07 09:00", "Mars/Olympus")).toBeNull();
    expect(siteLocalToGmt("2026-02-30 09:00", "UTC")).toBeNull();
    // Clocks in Berlin go from 02:00 to 03:00 on 2026-03-29: 02:30 never happens.
    expect(siteLocalToGmt("2026-03-29 02:30", "Europe/Berlin")).toBeNull();
  });

  it("reads back the same wall time it wrote, for any time in a range of zones", () => {
    const zones = ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Sydney", "UTC", "+09:00"];
    fc.assert(
      fc.property(
        fc.date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2035-12-31T00:00:00Z"), noInvalidDate: true }),
        fc.constantFrom(...zones),
        (date, zone) => {
          const local = gmtToSiteLocal(date.toISOString().slice(0, 16).replace("T", " "), zone);
          const gmt = siteLocalToGmt(local, zone);
          // An hour repeated when clocks go back maps to one of its two instants; it still reads back the same.
          if (gmt !== null) expect(gmtToSiteLocal(gmt, zone)).toBe(local);
        },
      ),
      { numRuns: 300 },
    );
  });
});
