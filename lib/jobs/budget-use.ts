/**
 * A bulk job's budget use in figures, beside its limits (docs/bulk-jobs.md, "Budgets"): items selected of
 * BULK_JOB_MAX_ITEMS, model tokens of BULK_JOB_MAX_TOKENS, planning time of BULK_JOB_MAX_MINUTES. Client-safe (no
 * server code): the chat's job card and the queue page show these, next to the chat turn's own figures.
 */

export type BudgetFigure = { name: string; used: number; max: number; text: string };

type JobForBudget = {
  status: string;
  selection: { count: number };
  progress: { tokens?: number; planningMs?: number };
  limits: { maxItems: number; maxTokens: number; maxMinutes: number };
  createdAt: string;
  updatedAt: string;
};

const number = (n: number) => n.toLocaleString("en-US");
/** Minutes with one decimal under ten, whole above: "0.4", "12". */
const minutes = (ms: number) => {
  const m = ms / 60_000;
  return m < 10 ? (Math.floor(m * 10) / 10).toFixed(1) : String(Math.floor(m));
};

/**
 * The job's figures: while it plans, the time from its start to its latest progress counts; after, how long planning
 * took (the limit bounds planning; reviewing later spends none of it). No clock is read, so the server's render and
 * the browser's agree.
 */
export function jobBudgetUse(job: JobForBudget): BudgetFigure[] {
  const { limits } = job;
  const tokens = job.progress.tokens ?? 0;
  const spentMs =
    job.status === "planning" || job.progress.planningMs === undefined
      ? Math.max(0, Date.parse(job.updatedAt) - Date.parse(job.createdAt))
      : job.progress.planningMs;
  const maxMs = limits.maxMinutes * 60_000;
  const usedMs = Math.min(spentMs, maxMs);
  return [
    {
      name: "items",
      used: job.selection.count,
      max: limits.maxItems,
      text: `${number(job.selection.count)} of ${number(limits.maxItems)} items`,
    },
    {
      name: "tokens",
      used: tokens,
      max: limits.maxTokens,
      text: `${number(tokens)} of ${number(limits.maxTokens)} model tokens`,
    },
    { name: "time", used: usedMs, max: maxMs, text: `${minutes(usedMs)} of ${number(limits.maxMinutes)} minutes` },
  ];
}
