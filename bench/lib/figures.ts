import { smoke } from "./smoke";

/** One measured figure, as printed in the table and written to bench/results/<timestamp>.json. */
export type Figure = {
  section: string;
  name: string;
  value: number | string;
  unit: string;
  /** The goal in words (e.g. "≥ 90%"), when the issue sets one. */
  goal?: string;
  /** Whether the goal was met; undefined when there is no goal. */
  ok?: boolean;
};

export const figure = (
  section: string,
  name: string,
  value: number | string,
  unit: string,
  goal?: { text: string; ok: boolean },
): Figure => ({
  section,
  name,
  value,
  unit,
  // The smoke pass judges no goal: its single samples say nothing about them.
  ...(goal && !smoke ? { goal: goal.text, ok: goal.ok } : {}),
});

function formatValue(value: number | string): string {
  if (typeof value === "string") return value;
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function table(figures: Figure[]): string {
  const rows = figures.map((f) => [
    f.section,
    f.name,
    `${formatValue(f.value)} ${f.unit}`.trim(),
    f.goal ?? "",
    f.ok === undefined ? "" : f.ok ? "yes" : "NO",
  ]);
  const header = ["Part", "Figure", "Value", "Goal", "Met"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
