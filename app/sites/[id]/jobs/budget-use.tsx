/**
 * A budget's use beside its limits, as one short list: a bulk job's own (lib/jobs/budget-use.ts) and a chat turn's
 * (lib/agent/budget-use.ts), shown side by side so the owner sees the one did not spend the other.
 */
type Figure = { name: string; used: number; max: number; text: string };

export function BudgetUse({ label, figures, testId }: { label: string; figures: Figure[]; testId: string }) {
  if (figures.length === 0) return null;
  // A plain line, not a landmark: every turn has one, and a list of same-named regions confuses screen readers.
  return (
    <p data-testid={testId}>
      <small>
        {label}:{" "}
        {figures.map((figure, index) => (
          <span key={figure.name} data-budget={figure.name} data-used={figure.used} data-max={figure.max}>
            {index > 0 ? ", " : null}
            {figure.text}
          </span>
        ))}
        .
      </small>
    </p>
  );
}
