/**
 * The bench's smoke pass (`npm run bench -- --smoke`, run by scripts/test.sh): every figure taken once, with the
 * fewest samples that still take it, and no goal judged, so a change that breaks a benchmark fails the suite while
 * the figures themselves come only from a full run. The flag reaches the parts' own processes as BENCH_SMOKE=1.
 */
export const smoke = process.argv.includes("--smoke") || process.env.BENCH_SMOKE === "1";
if (smoke) process.env.BENCH_SMOKE = "1";

/** `full` samples in a full run, `small` (at least one) in the smoke pass. */
export const sized = (full: number, small = 1): number => (smoke ? small : full);
