/**
 * One row per target (./combined.ts), without a site: what a combined row shows and which waiting changes in it can
 * no longer be approved. The same rows on the real WordPress: lib/workflows/review.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { PublicChangeItem } from "./change-sets";
import { combineByTarget, strandedSteps } from "./combined";

const item = (id: string, fields: Partial<PublicChangeItem>): PublicChangeItem => ({
  id,
  kind: "page",
  targetId: "post:7",
  title: "Hours",
  summary: `Change ${id}`,
  action: "update",
  before: {},
  after: {},
  status: "pending",
  visible: true,
  ...fields,
});

describe("combineByTarget", () => {
  it("shows each field as the first change found it and the last one left it, and keeps other targets apart", () => {
    const rows = combineByTarget([
      item("a", { before: { title: "Hours" }, after: { title: "Our hours" } }),
      item("x", { targetId: "post:8", title: "Prices", before: { excerpt: "" }, after: { excerpt: "Cheap" } }),
      item("b", {
        title: "Our hours",
        before: { title: "Our hours", content: "<p>Old</p>" },
        after: { title: "Hours 2", content: "<p>New</p>" },
        restsOn: "a",
        places: [{ kind: "page", label: "Hours", url: "https://example.test/?page_id=7" }],
      }),
    ]);
    expect(rows.map((row) => row.itemIds)).toEqual([["a", "b"], ["x"]]);
    expect(rows[0]).toMatchObject({
      id: "a",
      title: "Hours",
      before: { title: "Hours", content: "<p>Old</p>" },
      after: { title: "Hours 2", content: "<p>New</p>" },
      places: [{ label: "Hours" }],
    });
    expect(rows[0]!.steps.map((step) => step.restsOn)).toEqual([undefined, "a"]);
    expect(rows[1]).toMatchObject({ before: { excerpt: "" }, after: { excerpt: "Cheap" }, steps: [{ id: "x" }] });
  });

  it("says the row's state only when its changes share it", () => {
    const [row] = combineByTarget([item("a", { status: "applied" }), item("b", { status: "pending" })]);
    expect(row!.status).toBe("mixed");
    expect(row!.steps.map((step) => step.status)).toEqual(["applied", "pending"]);
  });

  it("merges an Elementor page's settings: the first before and the last after of each", () => {
    const setting = (before: string, after: string) => ({
      path: "Hero › Heading",
      elementId: "e1",
      setting: "title",
      before,
      after,
    });
    const [row] = combineByTarget([
      item("a", { kind: "builder", after: { elements: [setting("Hi", "Hello")] } }),
      item("b", { kind: "builder", after: { elements: [setting("Hello", "Welcome")] } }),
    ]);
    expect(row!.after).toEqual({ elements: [setting("Hi", "Welcome")] });
  });

  it("keeps each creation its own row", () => {
    const rows = combineByTarget([
      item("a", { targetId: "post:new", action: "create" }),
      item("b", { targetId: "post:new", action: "create" }),
    ]);
    expect(rows).toHaveLength(2);
  });
});

describe("strandedSteps", () => {
  it("names a waiting change planned on top of a denied one, and the changes resting on it in turn", () => {
    const [row] = combineByTarget([
      item("a", { status: "denied" }),
      item("b", { restsOn: "a" }),
      item("c", { restsOn: "b" }),
    ]);
    expect(strandedSteps(row!).map(({ step, on }) => [step.id, on.id])).toEqual([
      ["b", "a"],
      ["c", "b"],
    ]);
  });

  it("leaves a change on top of a written or still waiting one approvable", () => {
    const [written] = combineByTarget([item("a", { status: "applied" }), item("b", { restsOn: "a" })]);
    const [waiting] = combineByTarget([item("a", {}), item("b", { restsOn: "a" })]);
    expect(strandedSteps(written!)).toEqual([]);
    expect(strandedSteps(waiting!)).toEqual([]);
  });
});
