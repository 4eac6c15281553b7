/**
 * Functions a reader can hold (issue #21): no function over 80 lines. Found by walking the files with the TypeScript
 * compiler, so a new component cannot grow past it unnoticed. Enforced for the chat page and the sandboxes page so
 * far; the longest functions elsewhere in lib/ and app/ are reported (not failed) so the rule can widen.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const MAX_LINES = 80;
/** Folders where a function over the limit fails the test. */
const ENFORCED = ["app/sites/[id]/chat", "app/sandboxes"];
/** Being split in another change of issue #21 (its owner's file, not this test's): reported until then. */
const PENDING = new Set(["app/sites/[id]/chat/tool-card.tsx"]);
/** Folders whose longest functions are reported. */
const REPORTED = ["lib", "app"];

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

  it.each(ENFORCED)("no function in %s is over 80 lines", (folder) => {
    const long = lengthsUnder(folder).filter((f) => f.lines > MAX_LINES);
    const pending = long.filter((f) => PENDING.has(f.file));
    if (pending.length) console.info(`function length, pending a split: ${pending.map(describeFn).join(", ")}`);
    expect(long.filter((f) => !PENDING.has(f.file)).map(describeFn)).toEqual([]);
  });

  it("reports the longest functions elsewhere in lib/ and app/", () => {
    const all = REPORTED.flatMap(lengthsUnder).sort((a, b) => b.lines - a.lines);
    expect(all.length).toBeGreaterThan(0);
    const over = all.filter((f) => f.lines > MAX_LINES);
    console.info(
      `function length: ${over.length} functions over ${MAX_LINES} lines in lib/ and app/ (not yet enforced there); longest:\n${all
        .slice(0, 10)
        .map(describeFn)
        .join("\n")}`,
    );
  });
});
