import { AppError } from "@/lib/errors";

export const MAX_BODY_BYTES = 64 * 1024;

/** Reads a JSON body with a hard byte cap, whatever Content-Length claims. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const contentType = request.headers.get("content-type") ?? "";
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new AppError("unsupported_media_type", "Send the request body as JSON (Content-Type: application/json).", { status: 415 });
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
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new AppError("invalid_json", "The request body is not valid UTF-8 JSON.", { status: 400 });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", "The request body is not valid JSON.", { status: 400 });
  }
}

const tooLarge = (maxBytes: number) =>
  new AppError("payload_too_large", `The request body is larger than ${Math.round(maxBytes / 1024)} KiB.`, { status: 413 });
