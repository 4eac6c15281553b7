// `npm run dev` runs this first (npm's predev): every dev session starts from an empty `.next/dev`, the state in which
// the reload loop after an environment change never happened (docs/operations.md, "The dev server's reload loop").
// The production build (`.next` outside `dev/`) is left alone.
import { rmSync } from "node:fs";
import path from "node:path";

rmSync(path.resolve(import.meta.dirname, "..", ".next", "dev"), { recursive: true, force: true });
