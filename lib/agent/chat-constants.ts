/**
 * What the chat page and the server must agree on, safe to import from a client component (no server code).
 */

/** Chat messages over 8 KiB of text are refused (the contract's 413). */
export const MAX_MESSAGE_BYTES = 8 * 1024;

/** How a turn that did not simply finish ended, in words (keys: `TurnMetadata.stopReason`). */
export const STOP_REASON_WORDS: Record<string, string> = {
  max_steps: "Stopped at the step limit.",
  max_tool_calls: "Stopped at the tool call limit.",
  max_tokens: "Stopped at the token limit.",
  timeout: "Stopped at the time limit.",
  error: "Stopped by an error.",
  aborted: "Stopped.",
};
