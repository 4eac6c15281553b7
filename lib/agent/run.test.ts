/**
 * The end of a turn when the conversation cannot be saved (real PostgreSQL refusing the rows: the conversation does
 * not exist): the owner reads why, and the stream still finishes with the turn's metadata.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "@/lib/db/testing";
import type { SiteClient } from "@/lib/sites/types";
import { modelBreaker } from "./breaker";
import { streamTurn } from "./run";
import { scriptedModel } from "./testing/scripted-model";

useTestDatabase();

const unusedSite: SiteClient = {
  get: () => Promise.reject(new Error("the site is not called in this test")),
  post: () => Promise.reject(new Error("the site is not called in this test")),
  put: () => Promise.reject(new Error("the site is not called in this test")),
  delete: () => Promise.reject(new Error("the site is not called in this test")),
};

async function chunksOf(stream: ReadableStream<unknown>) {
  const out: Array<{ type: string; errorText?: string }> = [];
  for await (const chunk of stream as unknown as AsyncIterable<{ type: string; errorText?: string }>) out.push(chunk);
  return out;
}

describe("a turn whose conversation cannot be saved", () => {
  it("tells the owner it was not saved, and still finishes the stream", async () => {
    const stream = streamTurn({
      userId: randomUUID(),
      site: { id: randomUUID(), url: "https://example.test", name: "Example", pageBuilder: null },
      conversationId: randomUUID(), // no such conversation: saving its messages is refused by the database
      history: [{ id: randomUUID(), role: "user", parts: [{ type: "text", text: "Hello" }] }],
      operations: [],
      client: unusedSite,
      model: { model: scriptedModel([{ text: "Hello there." }]), provider: "test", breaker: modelBreaker("test") },
      limits: { maxSteps: 2, maxToolCalls: 2, maxTokens: 10_000, timeoutMs: 10_000 },
    });
    const chunks = await chunksOf(stream);
    expect(chunks.filter((c) => c.type === "error").map((c) => c.errorText)).toEqual([
      "This conversation could not be saved; what was done on the site is in the activity log.",
    ]);
    expect(chunks.at(-1)).toMatchObject({ type: "finish", messageMetadata: { stopReason: "finished" } });
  });
});
