/**
 * How an upload's bytes are answered to its owner: with the type found from its content, never sniffed again by
 * the browser, no script or plugin allowed to run from it, and PDFs as downloads rather than documents in our origin.
 */
import type { Upload } from "@/lib/db/schema";

export function uploadBody(upload: Pick<Upload, "bytes" | "mime" | "name">): Response {
  const inline = upload.mime.startsWith("image/");
  const name = encodeURIComponent(upload.name);
  return new Response(new Uint8Array(upload.bytes), {
    status: 200,
    headers: {
      "Content-Type": upload.mime,
      "Content-Length": String(upload.bytes.length),
      "Content-Disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${name}`,
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, max-age=3600",
    },
  });
}
