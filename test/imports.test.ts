/**
 * The shape of lib/ (README.md, "Where things are"): use cases that combine the agent, change sets, sandboxes and
 * sites live in lib/workflows/, and the domain folders stop calling each other. Walks every module under lib/ (tests
 * aside: they may drive anything) and fails on a forbidden import, an import circle between modules or between
 * folders, a ground-floor module importing above it, or an MCP module holding a rule of the click (docs/mcp.md:
 * lib/mcp is a protocol adapter; lib/agent/call-operation.ts holds the rule), as test/csrf.test.ts walks app/.
 * Each rule is also fed a broken graph, to show it can fail.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const LIB = path.join(ROOT, "lib");

/** `from` must never import `to` (folders relative to the repository). */
const FORBIDDEN: Array<{ from: string; to: string; why: string }> = [
  {
    from: "lib/agent",
    to: "lib/sandbox",
    why: "the agent runs on a site client; which site (live or sandbox) is the chat turn's choice",
  },
  { from: "lib/changes", to: "lib/sandbox", why: "replay planning is pure: the sandbox's addresses are handed in" },
  { from: "lib/sandbox", to: "lib/changes", why: "applying a rehearsal is a use case (lib/workflows)" },
  { from: "lib", to: "scripts", why: "scripts use lib, never the other way" },
  { from: "lib", to: "e2e", why: "end-to-end specs use lib, never the other way" },
  { from: "lib", to: "app", why: "lib never imports app (STYLE.md)" },
  ...["lib/changes/plan.ts", "lib/agent/writes.ts", "lib/agent/tools.ts", "lib/sites/items.ts"].map((to) => ({
    from: "lib/mcp",
    to,
    why: "MCP is a protocol adapter: planning, visibility and the click rule are lib/agent/call-operation.ts's",
  })),
];

/** What only the use case decides (lib/agent/call-operation.ts): no MCP module may say it. */
const MCP_RULE_WORDS =
  /\.visible\b|\bvisible\s*:|planVisibility|seeVisibility|requireInvisible|needsClick|holdForClick|writeUnseenOrHold|writePlanNow|recordPendingPlan|recordWritten|auditChange|insertToolAudit|finishToolAudit/;

/** A module of lib/mcp whose code (comments aside) decides the click or keeps its own audit. */
function rulesInAdapter(files: string[], sources: Record<string, string> = {}): string[] {
  return files
    .filter((file) => inFolder(path.relative(ROOT, file), "lib/mcp"))
    .flatMap((file) => {
      const code = (sources[file] ?? readFileSync(file, "utf8")).replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, "");
      const found = MCP_RULE_WORDS.exec(code);
      return found ? [`${path.relative(ROOT, file)} says "${found[0]}": the click rule is the use case's`] : [];
    });
}

/**
 * The ground floor: logging, the database and what they stand on. They import nothing above them, so every other
 * part of lib/ can log and store without a circle.
 */
const GROUND_FLOOR = ["lib/log.ts", "lib/db", "lib/env.ts", "lib/errors.ts", "lib/process-state.ts", "lib/clock.ts"];
const onGround = (file: string) => GROUND_FLOOR.some((floor) => inFolder(file, floor));

function aboveGround(graph: Graph): string[] {
  return [...graph].flatMap(([from, tos]) =>
    onGround(from) ? tos.filter((to) => !onGround(to)).map((to) => `${from} (ground floor) imports ${to}`) : [],
  );
}

function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return modules(full);
    return /\.(ts|tsx|mjs)$/.test(name) && !/\.test\.ts$/.test(name) && !name.endsWith(".d.ts") ? [full] : [];
  });
}

const IMPORT =
  /(?:import|export)\s+(?:type\s+)?(?:[^"'`;]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The repository files a module imports (type-only imports count: they still tie the folders together). */
function importsOf(file: string, source = readFileSync(file, "utf8")): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2]!;
    let target: string | undefined;
    if (spec.startsWith("@/")) target = path.join(ROOT, spec.slice(2));
    else if (spec.startsWith(".")) target = path.resolve(path.dirname(file), spec);
    if (!target) continue;
    const resolved = [target, `${target}.ts`, `${target}.tsx`, `${target}.mjs`, path.join(target, "index.ts")].find(
      (candidate) => {
        try {
          return statSync(candidate).isFile();
        } catch {
          return false;
        }
      },
    );
    found.push(path.relative(ROOT, resolved ?? target));
  }
  return found;
}

const inFolder = (file: string, folder: string) => file === folder || file.startsWith(`${folder}/`);

function violations(files: string[], sources: Record<string, string> = {}) {
  const out: string[] = [];
  for (const file of files) {
    const from = path.relative(ROOT, file);
    for (const to of importsOf(file, sources[file])) {
      for (const rule of FORBIDDEN) {
        if (inFolder(from, rule.from) && inFolder(to, rule.to)) out.push(`${from} imports ${to}: ${rule.why}`);
      }
    }
  }
  return out;
}

/** Module → the lib/ modules it imports, paths relative to the repository. */
type Graph = Map<string, string[]>;

function moduleGraph(files: string[]): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    graph.set(
      path.relative(ROOT, file),
      importsOf(file).filter((to) => to.startsWith("lib/")),
    );
  }
  return graph;
}

/** The folder a module belongs to: `lib/agent/operations/x.ts` → `lib/agent`; a file at the top of lib/ is its own. */
const folderOf = (file: string) => file.split("/").slice(0, 2).join("/");

/** Folder → the other folders its modules import. */
function folderGraph(graph: Graph): Graph {
  const folders = new Map<string, Set<string>>();
  for (const [from, tos] of graph) {
    const own = folderOf(from);
    const set = folders.get(own) ?? new Set<string>();
    for (const to of tos) if (folderOf(to) !== own) set.add(folderOf(to));
    folders.set(own, set);
  }
  return new Map([...folders].map(([folder, set]) => [folder, [...set]]));
}

/** Import circles in a graph (each reported once, as the path around it). */
function circles(graph: Graph): string[][] {
  const found: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") {
        const circle = stack.slice(stack.indexOf(next));
        const key = [...circle].sort().join(" ");
        if (!seen.has(key)) {
          seen.add(key);
          found.push([...circle, next]);
        }
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

describe("the shape of lib/", () => {
  const files = modules(LIB);

  it("finds the modules", () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it("has no forbidden import between folders", () => {
    expect(violations(files)).toEqual([]);
  });

  it("has no import circle between modules", () => {
    expect(circles(moduleGraph(files)).map((circle) => circle.join(" → "))).toEqual([]);
  });

  it("has no import circle between folders", () => {
    expect(circles(folderGraph(moduleGraph(files))).map((circle) => circle.join(" → "))).toEqual([]);
  });

  it("keeps the ground floor (log, db and what they stand on) from importing anything above it", () => {
    expect(aboveGround(moduleGraph(files))).toEqual([]);
  });

  it("keeps every rule of the click out of the MCP adapter", () => {
    expect(rulesInAdapter(files)).toEqual([]);
  });

  it("fails on a folder circle made of modules that form no circle themselves", () => {
    const graph: Graph = new Map([
      ["lib/agent/a.ts", ["lib/changes/b.ts"]],
      ["lib/changes/b.ts", []],
      ["lib/changes/c.ts", ["lib/agent/d.ts"]],
      ["lib/agent/d.ts", []],
    ]);
    expect(circles(graph)).toEqual([]);
    expect(circles(folderGraph(graph))).toEqual([["lib/agent", "lib/changes", "lib/agent"]]);
  });

  it("fails when the ground floor imports from above it", () => {
    const graph: Graph = new Map([
      ["lib/log.ts", ["lib/http/request-context.mjs"]],
      ["lib/db/queries.ts", ["lib/env.ts", "lib/log.ts", "lib/sites/url.ts"]],
    ]);
    expect(aboveGround(graph)).toEqual([
      "lib/log.ts (ground floor) imports lib/http/request-context.mjs",
      "lib/db/queries.ts (ground floor) imports lib/sites/url.ts",
    ]);
  });

  it("fails when an MCP module decides the click, keeps its own audit or imports the planning", () => {
    const planted = path.join(LIB, "mcp", "planted.ts");
    const sources = {
      [planted]:
        '// a comment may say item.visible\nimport { holdPlanForApproval } from "@/lib/agent/writes";\nconst wait = plan.items.some((item) => item.visible);\n',
    };
    expect(rulesInAdapter([planted], sources)).toEqual([expect.stringContaining('says ".visible"')]);
    expect(violations([planted], sources)).toEqual([expect.stringContaining("imports lib/agent/writes.ts")]);
  });

  it("fails when a forbidden import is added", () => {
    const planted = path.join(LIB, "agent", "planted.ts");
    const sources = {
      [planted]: 'import { getSandboxManager } from "@/lib/sandbox";\nimport { x } from "../../scripts/site-local";\n',
    };
    expect(violations([planted], sources)).toEqual([
      expect.stringContaining("lib/agent/planted.ts imports lib/sandbox/index.ts"),
      expect.stringContaining("lib/agent/planted.ts imports scripts/site-local/index.ts"),
    ]);
  });
});
