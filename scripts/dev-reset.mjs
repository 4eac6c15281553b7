// `npm run dev` runs this first (npm's predev): every dev session starts from an empty `.next/dev`, the state in which
// the reload loop after an environment change never happened (docs/operations.md, "The dev server's reload loop").
// The production build (`.next` outside `dev/`) is left alone.
import { rmSync } from "node:fs";
import path from "node:path";

// A dev server stopped a moment ago may still be writing its last files there (ENOTEMPTY while the tree is removed):
// retried a few times, as rmSync offers, before giving up.
rmSync(path.resolve(import.meta.dirname, "..", ".next", "dev"), {
  recursive: true,
  force: true,
  maxRetries: 10,
  retryDelay: 200,
});
