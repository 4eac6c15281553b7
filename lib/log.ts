/**
 * Structured one-line JSON logs. Never pass secrets, codes, tokens or passwords in `fields`. A line written while
 * a request is handled carries that request's `requestId` (set by server.mjs, lib/http/request-context.mjs).
 * The ground floor: this module imports nothing of lib/ (test/imports.test.ts), so it reads the request's store
 * where lib/http/request-context.mjs keeps it for the whole process, on globalThis.
 */
import type { AsyncLocalStorage } from "node:async_hooks";

const REQUEST_CONTEXT = Symbol.for("sitewright.request-context");
const requestId = () =>
  (globalThis as { [REQUEST_CONTEXT]?: AsyncLocalStorage<{ requestId?: string }> })[REQUEST_CONTEXT]?.getStore()
    ?.requestId;

type Level = "debug" | "info" | "warn" | "error";
const order: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

function threshold(): number {
  const level = (process.env.LOG_LEVEL || (process.env.NODE_ENV === "test" ? "silent" : "info")) as Level | "silent";
  return order[level] ?? order.info;
}

function serializeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    return {
      name: error.name,
      message: error.message,
      stack: error.stack,
      cause: error.cause ? serializeError(error.cause) : undefined,
    };
  }
  return { value: String(error) };
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}) {
  if (order[level] < threshold()) return;
  const record: Record<string, unknown> = { time: new Date().toISOString(), level, message };
  const id = requestId();
  if (id) record.requestId = id;
  for (const [key, value] of Object.entries(fields)) record[key] = key === "error" ? serializeError(value) : value;
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${JSON.stringify(record)}\n`);
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write("debug", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write("info", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write("warn", message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write("error", message, fields),
};
