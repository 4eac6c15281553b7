// `npm run dev` runs this first (npm's predev): every dev session starts from an empty `.next/dev`, the state in which
// the reload loop after an environment change never happened (docs/operations.md, "The dev server's reload loop").
// The production build (`.next` outside `dev/`) is left alone.
import { rmSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const dir = path.resolve(import.meta.dirname, "..", ".next", "dev");
// A dev server stopped a moment ago may still be writing its last files there (ENOTEMPTY while the tree is removed):
// tried again for up to 20 s before giving up.
const deadline = Date.now() + 20_000;
for (;;) {
  try {
    rmSync(dir, { recursive: true, force: true });
    break;
  } catch (error) {
    if (!["ENOTEMPTY", "EBUSY", "EPERM"].includes(error.code) || Date.now() > deadline) throw error;
    await sleep(250);
  }
}
