import { describe, expect, it } from "vitest";
import { changeSetKind } from "./kind";

describe("what kind a change set is", () => {
  it("calls a sandbox set a rehearsal, a job's own one too", () => {
    expect(changeSetKind({ target: "sandbox", turnId: "sbx:0" }, undefined)).toBe("rehearsal");
    expect(changeSetKind({ target: "sandbox", turnId: "job:1" }, { id: "1" })).toBe("rehearsal");
  });

  it("calls a live job's queue, and the live set an Apply of a job's rehearsal wrote, a job", () => {
    expect(changeSetKind({ target: "live", turnId: "job:1" }, { id: "1" })).toBe("job");
    expect(changeSetKind({ target: "live", turnId: "job:1:apply-1700000000000" }, undefined)).toBe("job");
  });

  it("calls every other live set a turn (a chat turn's, an MCP call's)", () => {
    expect(changeSetKind({ target: "live", turnId: "turn-7" }, undefined)).toBe("turn");
    expect(changeSetKind({ target: "live", turnId: "mcp_abc" }, undefined)).toBe("turn");
  });
});
