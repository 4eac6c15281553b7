/**
 * Functions a reader can hold (issue #21): no function over 80 lines in lib/ or app/, and the agent's turn
 * (`streamTurn`) under 60. Found by walking the files with the TypeScript compiler, so a new function cannot grow
 * past it unnoticed.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const MAX_LINES = 80;
/** Folders where a function over the limit fails the test. */
const ENFORCED = ["lib", "app"];
/** The agent's turn is read most often: it stays shorter than the general limit. */
const MAX_TURN_LINES = 60;

type LongFunction = { file: string; name: string; line: number; lines: number };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === "node_modules" ? [] : sourceFiles(full);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
  });
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText();
  return "(anonymous)";
}

/** Every function (declarations, expressions, arrows, methods) with its length from first line to last. */
function functionLengths(file: string, text: string): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: nameOf(node), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function lengthsUnder(folder: string): LongFunction[] {
  return sourceFiles(path.join(ROOT, folder)).flatMap((file) =>
    functionLengths(path.relative(ROOT, file), readFileSync(file, "utf8")),
  );
}

const describeFn = (f: LongFunction) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;

describe("function length", () => {
  it("counts a function from its first line to its last, arrows and components included", () => {
    const text = [
      "export function Short() {",
      "  return 1;",
      "}",
      "const Arrow = () => {",
      ...Array.from({ length: 5 }, () => "  void 0;"),
      "};",
    ].join("\n");
    expect(functionLengths("x.tsx", text).map(({ name, lines }) => ({ name, lines }))).toEqual([
      { name: "Short", lines: 3 },
      { name: "Arrow", lines: 7 },
    ]);
  });

  it.each(ENFORCED)("no function in %s/ is over 80 lines", (folder) => {
    const long = lengthsUnder(folder).filter((f) => f.lines > MAX_LINES);
    expect(long.map(describeFn)).toEqual([]);
  });

  it(`keeps streamTurn, the agent's turn, under ${MAX_TURN_LINES} lines`, () => {
    const turn = lengthsUnder("lib/agent").filter((f) => f.file === "lib/agent/run.ts" && f.name === "streamTurn");
    expect(turn).toHaveLength(1);
    expect(turn[0]!.lines).toBeLessThan(MAX_TURN_LINES);
  });

  it("reports the longest functions in lib/ and app/", () => {
    const all = ENFORCED.flatMap(lengthsUnder).sort((a, b) => b.lines - a.lines);
    expect(all.length).toBeGreaterThan(0);
    console.info(`function length: the longest in lib/ and app/:\n${all.slice(0, 10).map(describeFn).join("\n")}`);
  });
});
