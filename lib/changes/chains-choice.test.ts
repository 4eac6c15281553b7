/**
 * The choice rules of several changes to one item (docs/change-sets.md, "Several changes to one item"), without a
 * site: which changes a click sends, and what it refuses before anything is claimed.
 */
import { describe, expect, it } from "vitest";
import type { ChangeItem } from "@/lib/db/schema";
import { isAppError } from "@/lib/errors";
import { chainUndos, chainWrites } from "./chains";

const base = { type: "page", status: "publish", title: "Hours", content: "<p>Old</p>", excerpt: "" };

function item(seq: number, fields: Record<string, unknown>, expect: string, extra: Partial<ChangeItem> = {}) {
  return {
    id: `item-${seq}`,
    seq,
    ref: "post:7",
    title: "Hours",
    summary: `Change ${seq}`,
    action: "update",
    status: "pending",
    change: { ref: "post:7", expect, action: "update", fields },
    beforeState: base,
    afterState: null,
    versionRead: expect,
    versionAfter: null,
    appliedAt: null,
    ...extra,
  } as unknown as ChangeItem;
}

const first = item(1, { title: "Our hours" }, "v0");
const second = item(2, { content: "<p>New</p>" }, "pending:item-1", {
  beforeState: { ...base, title: "Our hours" },
});

function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("chainWrites", () => {
  it("merges a target's chain written together into one change expecting the first item's version", () => {
    const writes = chainWrites([second, first], [first, second]);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.change).toEqual({
      ref: "post:7",
      expect: "v0",
      action: "update",
      fields: { title: "Our hours", content: "<p>New</p>" },
    });
    expect(writes[0]!.items.map((i) => i.id)).toEqual(["item-1", "item-2"]);
  });

  it("makes a later item expect the version its written predecessor left", () => {
    const written = { ...first, status: "applied", versionAfter: "v1" } as ChangeItem;
    const writes = chainWrites([second], [written, second]);
    expect(writes.map((w) => w.change.expect)).toEqual(["v1"]);
  });

  it("refuses a later item chosen without the earlier one it rests on, naming both", () => {
    const error = refusal(() => chainWrites([second], [first, second]));
    expect(error.code).toBe("not_applicable");
    expect(error.message).toContain("still waits for approval");
    expect(error.details).toEqual({ items: [{ id: "item-2", restsOn: "item-1" }] });
    const denied = { ...first, status: "denied" } as ChangeItem;
    expect(refusal(() => chainWrites([second], [denied, second])).message).toContain("was denied");
  });
});

describe("chainUndos", () => {
  const applied = (i: ChangeItem, after: Record<string, unknown>, version: string) =>
    ({ ...i, status: "applied", afterState: after, versionAfter: version, appliedAt: new Date(0) }) as ChangeItem;
  const end = { ...base, title: "Our hours", content: "<p>New</p>" };
  const a = applied(first, end, "v1");
  const b = applied(second, end, "v1");

  it("undoes a chain as one change back to the state before its first item", () => {
    const undos = chainUndos([a, b], [a, b]);
    expect(undos).toHaveLength(1);
    expect(undos[0]!.change).toMatchObject({
      ref: "post:7",
      expect: "v1",
      action: "update",
      fields: { title: "Hours", content: "<p>Old</p>" },
    });
  });

  it("refuses an earlier item chosen without the later written one resting on it", () => {
    const error = refusal(() => chainUndos([a], [a, b]));
    expect(error.code).toBe("not_applicable");
    expect(error.message).toContain("undo them together");
  });

  it("undoes two writes of one item with nobody's edit between them as one change", () => {
    const one = applied(item(1, { title: "Our hours" }, "v0"), { ...base, title: "Our hours" }, "v1");
    const two = applied(
      item(2, { content: "<p>New</p>" }, "v1", { versionRead: "v1", beforeState: { ...base, title: "Our hours" } }),
      end,
      "v2",
    );
    const undos = chainUndos([one, two], [one, two]);
    expect(undos.map((u) => u.change)).toEqual([
      { ref: "post:7", expect: "v2", action: "update", fields: { title: "Hours", content: "<p>Old</p>" } },
    ]);
    // A person's save between them (the second read another version) keeps them apart: each expects its own.
    const apart = chainUndos([one, { ...two, versionRead: "v1-edited" } as ChangeItem], [one, two]);
    expect(apart.map((u) => u.change.expect)).toEqual(["v2", "v1"]);
  });

  it("undoes a creation and a later edit of it by deleting it, expecting the edit's version", () => {
    const created = applied(
      item(1, { title: "New" }, "", { action: "create", beforeState: null, versionRead: null } as Partial<ChangeItem>),
      { ...base, title: "New" },
      "v1",
    );
    const edited = applied(item(2, { content: "<p>New</p>" }, "v1", { versionRead: "v1" }), end, "v2");
    expect(chainUndos([created, edited], [created, edited]).map((u) => u.change)).toEqual([
      { ref: "post:7", expect: "v2", action: "delete" },
    ]);
  });

  it("undoes a later item alone: only its own fields go back", () => {
    const undos = chainUndos([b], [a, b]);
    expect(undos[0]!.change.fields).toEqual({ content: "<p>Old</p>" });
  });
});
