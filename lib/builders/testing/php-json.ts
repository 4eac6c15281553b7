/** Tests: JSON exactly as Elementor stores it, made by PHP's json_encode with no flags (wp_json_encode). */
import { execFileSync } from "node:child_process";

export function phpJson(value: unknown): string {
  return execFileSync("php", ["-r", "echo json_encode(json_decode(stream_get_contents(STDIN), true));"], {
    input: JSON.stringify(value),
  }).toString();
}
