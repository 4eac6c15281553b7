/**
 * A chat turn through the real `POST /chat` route, as the browser sends it, read back as the UI stream's chunks, and
 * what the tests read in them (approval requests, tool outputs, change parts). It lives in test/, not in
 * lib/agent/testing/, because it drives a route: lib never imports app (test/imports.test.ts).
 */
import { expect } from "vitest";
import { POST as chatRoute } from "@/app/chat/route";
import { type Chunk, parseUiStream, streamText } from "./agent-site";
import { call } from "./http";

export type Turn = {
  status: number;
  chunks: Chunk[];
  /** The assistant's words in the turn. */
  text: string;
  conversationId?: string;
  /** The stream's `finish` metadata (`changeSetId`, the budget). */
  metadata?: Record<string, unknown>;
  /** The error body of a turn the route refused (status other than 200). */
  json?: any;
};

const APP = "http://localhost:3000";

/** A turn's chunks read as the chat page reads them: the conversation it belongs to and its finish metadata. */
export function readTurn(status: number, text: string): Turn {
  const chunks = parseUiStream(text);
  const conversation = chunks.find((c) => c.type === "data-conversation") as
    | { data: { conversationId: string } }
    | undefined;
  const finish = chunks.find((c) => c.type === "finish") as { messageMetadata?: Record<string, unknown> } | undefined;
  return {
    status,
    chunks,
    text: streamText(chunks),
    conversationId: conversation?.data.conversationId,
    metadata: finish?.messageMetadata,
  };
}

/**
 * `chat(body, cookie?)` for one site and, unless `cookie` names another, one person (read when called: tests set
 * them in `beforeAll`). The route must
 * answer 200 unless `refusals` is set; then a refused turn comes back with its status and error body, no chunks.
 */
export function chatAs(who: () => { siteId: string; cookie?: string }, options: { refusals?: boolean } = {}) {
  return async (body: Record<string, unknown>, cookie?: string): Promise<Turn> => {
    const { siteId, cookie: own } = who();
    const res = await call(chatRoute, {
      body: { siteId, ...body },
      cookie: cookie ?? own,
      path: "/chat",
      headers: { origin: APP },
    });
    if (!options.refusals) expect(res.status, res.text).toBe(200);
    if (res.status !== 200) return { status: res.status, chunks: [], text: "", json: res.json };
    return readTurn(res.status, res.text);
  };
}

/** The approval requests of a turn, in order: what the owner answers in the next request. */
export const approvalIds = (turn: Pick<Turn, "chunks">) =>
  turn.chunks.filter((c) => c.type === "tool-approval-request").map((c) => c.approvalId as string);

/** Every tool call's output in the turn, in order. */
export const outputs = (turn: Pick<Turn, "chunks">) =>
  turn.chunks.filter((c) => c.type === "tool-output-available").map((c) => c.output as Record<string, any>);

/** What a write's `data-change` part carries: its change set, status and items as the card shows them. */
export type ChangePart = {
  changeSetId: string;
  status: string;
  items: Array<Record<string, any>>;
  [key: string]: any;
};

/** The `data-change` parts of a turn, every update of each (the chat keeps the latest per call: `latestChanges`). */
export const changeParts = (turn: Pick<Turn, "chunks">) =>
  turn.chunks.filter((c) => c.type === "data-change").map((c) => c.data as ChangePart);

/** The change items each tool call planned or wrote, as the chat shows them (the latest part per call). */
export const latestChanges = (turn: Pick<Turn, "chunks">) => {
  const latest = new Map<string, ChangePart>();
  for (const c of turn.chunks) if (c.type === "data-change") latest.set(c.id as string, c.data as ChangePart);
  return [...latest.values()];
};

/** The change sets a turn's writes went to, each once, in order. */
export const changeSetIds = (turn: Pick<Turn, "chunks">) => [
  ...new Set(changeParts(turn).map((part) => part.changeSetId)),
];

/** A `chat` made by `chatAs`. */
export type Chat = ReturnType<typeof chatAs>;

/** The owner's answer to every approval request of `asked`, in its conversation: all approved unless told. */
export const answerEvery = (chat: Chat, asked: Turn, approved = true) =>
  chat({ conversationId: asked.conversationId, approvals: approvalIds(asked).map((id) => ({ id, approved })) });
