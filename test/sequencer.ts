/**
 * The order vitest starts files in when it runs them on several workers (vitest.config.ts): the long ones first, so
 * that a twenty-minute image build overlaps everything else instead of starting last and running alone. Files not
 * named here follow in vitest's own order (the slowest of the last run first when it has a cache, else the largest).
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Longest first, from the suite's own runs (docs/performance.md): builds and whole stacks, then the sandbox suites. */
export const SLOW_FIRST = [
  "test/deploy/containerfile.test.ts",
  "test/deploy/stack.test.ts",
  "lib/sandbox/sandboxes.test.ts",
  "lib/sandbox/rehearsal.test.ts",
  "test/deploy/hardening.test.ts",
  "lib/mcp/mcp-sandbox.test.ts",
  "test/reliability/job-restart.test.ts",
  "test/dotenv-port.test.ts",
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOW_FIRST.findIndex((slow) => file.moduleId.endsWith(slow));
      return index === -1 ? SLOW_FIRST.length : index;
    };
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}
