import { AppError } from "@/lib/errors";

export const MAX_BODY_BYTES = 64 * 1024;

/** Reads a JSON body with a hard byte cap, whatever Content-Length claims. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const text = await readJsonText(request, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", "The request body is not valid JSON.");
  }
  assertStorable(value);
  return value;
}

/**
 * A JSON body's exact text (UTF-8, capped), for a route that checks a signature over the bytes before parsing
 * (POST /sites/plugin/calls).
 */
export async function readJsonText(request: Request, maxBytes: number = MAX_BODY_BYTES): Promise<string> {
  const contentType = request.headers.get("content-type") ?? "";
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new AppError("unsupported_media_type", "Send the request body as JSON (Content-Type: application/json).");
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);

  const chunks: Uint8Array[] = [];
  let total = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new AppError("invalid_json", "The request body is not valid UTF-8 JSON.");
  }
}

export const MAX_JSON_DEPTH = 64;

/**
 * PostgreSQL text and jsonb cannot hold NUL, and a lone surrogate is not text at all: refuse both anywhere in the
 * body (values and keys) as the client's mistake, before any route stores them. Iterative, so hostile nesting
 * cannot overflow the stack.
 */
function assertStorable(root: unknown) {
  const stack: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      if (!isStorableText(value)) throw unstorable(path);
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (path.length >= MAX_JSON_DEPTH) {
      throw new AppError("invalid_input", `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`, {
        details: { issues: [{ path, message: "nested too deeply" }] },
      });
    }
    for (const [key, child] of Object.entries(value)) {
      if (!isStorableText(key)) throw unstorable([...path, key.replace(/\0/g, "\\0")]);
      stack.push({ value: child, path: [...path, key] });
    }
  }
}

const isStorableText = (text: string) => !text.includes("\0") && text.isWellFormed();

const unstorable = (path: string[]) =>
  new AppError(
    "invalid_input",
    "Some text in the request contains characters that are not allowed (NUL or broken Unicode).",
    {
      details: { issues: [{ path, message: "contains NUL or an unpaired surrogate" }] },
    },
  );

const tooLarge = (maxBytes: number) =>
  new AppError("payload_too_large", `The request body is larger than ${Math.round(maxBytes / 1024)} KiB.`);
