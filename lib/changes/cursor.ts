/**
 * Opaque cursors for the change-set routes: base64url JSON of a keyset position (a set's created time to the
 * microsecond and id; an item's position in its set). Whatever a client sends back is checked before it reaches
 * SQL: a cursor that is not one of ours is `400 invalid_input` on `cursor`, never a database error.
 */
import { z } from "zod";
import { AppError } from "@/lib/errors";

const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** A real instant: the date part survives a round trip (no 30 February), the year is one PostgreSQL reads. */
const instant = z
  .string()
  .regex(ISO_MICROS)
  .refine((value) => {
    const parsed = new Date(`${value.slice(0, 19)}Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 19) === value.slice(0, 19);
  });

const setPosition = z.strictObject({ t: instant, i: z.string().min(1).max(100) });
const itemPosition = z.strictObject({ s: z.number().int().min(0).max(2_147_483_647) });

const badCursor = () =>
  new AppError("invalid_input", "This page link is not valid any more. Load the list again.", {
    details: { issues: [{ path: ["cursor"], message: "not a cursor this list gave out" }] },
  });

function decode<T>(schema: z.ZodType<T>, cursor: string): T {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw badCursor();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw badCursor();
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw badCursor();
  return parsed.data;
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

export const encodeSetCursor = (position: { createdAt: string; id: string }) =>
  encode({ t: position.createdAt, i: position.id });

export function decodeSetCursor(cursor: string): { createdAt: string; id: string } {
  const { t, i } = decode(setPosition, cursor);
  return { createdAt: t, id: i };
}

export const encodeItemCursor = (seq: number) => encode({ s: seq });

export const decodeItemCursor = (cursor: string): number => decode(itemPosition, cursor).s;
