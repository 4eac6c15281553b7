/**
 * Undo's change for a written item (`reverseChange`): only the fields the write changed go back, and a floating
 * draft's local date goes back whenever the undo writes the post at all, since WordPress sets a floating draft's
 * date to "now" on every save (found as a flaky `lib/changes/undo.test.ts`: a draft edited in the same second it was
 * saved came back with the undo's second as its date).
 */
import { describe, expect, it } from "vitest";
import { reverseChange } from "./plan";

const floating = {
  title: "Menu",
  content: "<p>Rye</p>",
  status: "draft",
  date: "0000-00-00 00:00:00",
  date_local: "2026-11-29 17:29:13",
};

const reverse = (before: Record<string, unknown>, after: Record<string, unknown>) =>
  reverseChange({ ref: "post:5", action: "update", beforeState: before, afterState: after, versionAfter: "v2" });

describe("undo's change of a written post", () => {
  it("sends back only the fields the write changed", () => {
    const dated = { ...floating, date: "2026-11-29 16:29:13" };
    expect(reverse(dated, { ...dated, content: "<p>Sourdough</p>" })).toEqual({
      ref: "post:5",
      expect: "v2",
      action: "update",
      fields: { content: "<p>Rye</p>" },
    });
  });

  it("gives a floating draft its own date back even when the write left the date as it was", () => {
    expect(reverse(floating, { ...floating, content: "<p>Sourdough</p>" }).fields).toEqual({
      content: "<p>Rye</p>",
      date_local: "2026-11-29 17:29:13",
    });
  });

  it("writes nothing for a write that changed nothing, floating or not", () => {
    expect(reverse(floating, floating).fields).toEqual({});
  });
});
