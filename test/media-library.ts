/**
 * Files put in a test WordPress's media library as wp-admin's uploader leaves them: the file in uploads, its
 * attachment, and (unless `sizes` is false) the smaller copies WordPress makes with GD, `thumbnail` (150 px) among
 * them. For the review queue's thumbnails and the pictures a bulk job shows the model.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { runAsAdmin } from "./wordpress";

export async function addLibraryFile(
  wpPath: string,
  file: { name: string; bytes: Buffer; mime: string; title?: string; sizes?: boolean },
): Promise<number> {
  const uploads = path.join(wpPath, "wp-content", "uploads");
  mkdirSync(uploads, { recursive: true });
  writeFileSync(path.join(uploads, file.name), file.bytes);
  return runAsAdmin<number>(
    wpPath,
    "require_once ABSPATH . 'wp-admin/includes/image.php'; $file = wp_upload_dir()['basedir'] . '/' . $args[0]; $id = wp_insert_attachment(array('post_title' => $args[3], 'post_mime_type' => $args[1], 'post_status' => 'inherit'), $file); if ($args[2]) { wp_update_attachment_metadata($id, wp_generate_attachment_metadata($id, $file)); } echo json_encode($id);",
    [file.name, file.mime, file.sizes !== false, file.title ?? file.name],
  );
}

/** A plain photo-like JPEG of one colour. */
export const solidJpeg = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 3, background } })
    .jpeg()
    .toBuffer();
