/**
 * The one multipart body the service reads: a browser's file upload (`file` field), capped while it streams,
 * whatever Content-Length claims, before anything parses it.
 */
import { AppError } from "@/lib/errors";

/** Room for the multipart boundaries and part headers around the file itself. */
const ENVELOPE_BYTES = 64 * 1024;

export const tooLarge = (maxBytes: number) =>
  new AppError(
    "payload_too_large",
    `This file is larger than ${Math.floor(maxBytes / (1024 * 1024)) || maxBytes} ${maxBytes >= 1024 * 1024 ? "MiB" : "bytes"}, the limit for attachments.`,
    { details: { maxBytes } },
  );

async function readCapped(request: Request, cap: number, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The uploaded file's name and bytes; 415 for another body type, 413 over `maxBytes`, 400 without a file. */
export async function readUploadedFile(request: Request, maxBytes: number): Promise<{ name: string; bytes: Buffer }> {
  const contentType = request.headers.get("content-type") ?? "";
  if (contentType.split(";")[0]!.trim().toLowerCase() !== "multipart/form-data") {
    throw new AppError("unsupported_media_type", "Send the file as multipart/form-data, in a field named file.");
  }
  const cap = maxBytes + ENVELOPE_BYTES;
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > cap) throw tooLarge(maxBytes);
  const raw = await readCapped(request, cap, maxBytes);
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(raw), { headers: { "content-type": contentType } }).formData();
  } catch (cause) {
    throw new AppError("invalid_input", "The upload could not be read as multipart/form-data.", { cause });
  }
  const file = form.get("file");
  if (!file || typeof file === "string") {
    throw new AppError("invalid_input", "Attach the file in a field named file.", {
      details: { issues: [{ path: ["file"], message: "a file is required" }] },
    });
  }
  if (file.size > maxBytes) throw tooLarge(maxBytes);
  if (file.size === 0) throw new AppError("unsupported_media_type", "This file is empty.");
  return { name: file.name, bytes: Buffer.from(await file.arrayBuffer()) };
}
