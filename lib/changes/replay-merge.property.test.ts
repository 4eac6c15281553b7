/**
 * Rehearsal Apply merges per field (API.md v1.3, "Durable writes"; lib/changes/replay.ts mergeLiveEdits), as a
 * property over random rehearsals × random live edits by a person since the copy: no person's edit is ever lost.
 * Either the rehearsal and the person changed a field in common, and the Apply is refused naming exactly those
 * fields, or the change is sent over the live version with only the rehearsal's fields, so the page ends with the
 * person's fields as they left them and the rehearsal's as rehearsed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LiveChange, mergeLiveEdits } from "./replay";

const FIELDS = ["title", "content", "excerpt", "slug", "menu_order", "status"] as const;
const value = fc.constantFrom("a", "b", "c", "Bread 4 €", "<p>x</p>", "");
const fieldValues = fc.dictionary(fc.constantFrom(...FIELDS), value, { minKeys: 0, maxKeys: FIELDS.length });

const change = (fields: Record<string, unknown>, copied: Record<string, unknown>): LiveChange => ({
  change: { ref: "post:12", expect: "copied-version", action: "update", fields },
  item: { id: "item-1" } as LiveChange["item"],
  title: "Prices",
  kind: "page",
  sandboxRef: "post:40",
  copied,
});

describe("a rehearsal Apply over a person's live edits", () => {
  it("never loses a person's edit: refuses exactly on common fields, else writes only the rehearsal's fields", () => {
    fc.assert(
      fc.property(
        fc.record({ title: value, content: value, excerpt: value, slug: value, menu_order: value, status: value }),
        fieldValues.filter((f) => Object.keys(f).length > 0),
        fieldValues,
        (copied, rehearsed, edits) => {
          const personal = Object.keys(edits).filter((k) => edits[k] !== copied[k as keyof typeof copied]);
          const liveState = { ...copied, ...edits };
          const moved = personal.length > 0;
          const live = new Map([
            ["post:12", { exists: true, state: liveState, version: moved ? "live-version" : "copied-version" }],
          ]);
          const result = mergeLiveEdits([change(rehearsed, copied)], live);
          const common = Object.keys(rehearsed).filter((k) => personal.includes(k));
          expect(result.conflicts.map((c) => c.field).sort()).toEqual(common.sort());
          if (common.length > 0) return;
          const sent = result.changes[0]!.change;
          expect(sent.expect).toBe(moved ? "live-version" : "copied-version");
          const after = { ...liveState, ...sent.fields };
          for (const field of personal) expect(after[field as keyof typeof after]).toBe(edits[field]);
          for (const [field, planned] of Object.entries(rehearsed))
            expect(after[field as keyof typeof after]).toBe(planned);
        },
      ),
      { numRuns: 500, seed: 33 },
    );
  });

  it("refuses, naming the item and field, when it cannot tell what a person changed (the item is gone)", () => {
    const live = new Map([["post:12", { exists: false, state: null, version: null }]]);
    const result = mergeLiveEdits([change({ content: "new" }, { content: "old" })], live);
    expect(result.conflicts).toEqual([{ id: "item-1", title: "Prices", field: "content" }]);
  });
});
