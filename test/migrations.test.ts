/**
 * The migrations' history stays one line that ends at the schema: two branches that each added a migration once
 * left two snapshots pointing at the same parent and the newest snapshot missing tables, so `npm run db:generate`
 * refused to run (a collision) and, once that was mended by hand, generated a migration creating tables that exist.
 * Here drizzle-kit generates against a copy of drizzle/: the history must be accepted and nothing must be new.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const work = mkdtempSync(path.join(tmpdir(), "sitewright-migrations-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Journal = { entries: Array<{ idx: number; tag: string; when: number }> };

describe("the migrations", () => {
  it("are numbered in the order they run, each snapshot resting on the one before", () => {
    const journal = JSON.parse(readFileSync(path.join(root, "drizzle/meta/_journal.json"), "utf8")) as Journal;
    const tags = journal.entries.map((e) => e.tag);
    expect(tags.map((tag) => Number(tag.slice(0, 4)))).toEqual(journal.entries.map((e) => e.idx));
    const whens = journal.entries.map((e) => e.when);
    expect(whens).toEqual([...whens].sort((a, b) => a - b));
    const sql = readdirSync(path.join(root, "drizzle")).filter((f) => f.endsWith(".sql"));
    expect(sql.sort()).toEqual(tags.map((t) => `${t}.sql`).sort());

    let previous: string | undefined;
    for (const { idx } of journal.entries) {
      const file = path.join(root, "drizzle/meta", `${String(idx).padStart(4, "0")}_snapshot.json`);
      const snapshot = JSON.parse(readFileSync(file, "utf8")) as { id: string; prevId: string };
      if (previous) expect(snapshot.prevId, file).toBe(previous);
      previous = snapshot.id;
    }
  });

  it("end at the schema: drizzle-kit finds nothing to generate", async () => {
    cpSync(path.join(root, "drizzle"), path.join(work, "drizzle"), { recursive: true });
    const config = path.join(work, "drizzle.config.ts");
    writeFileSync(
      config,
      `export default ${JSON.stringify({ dialect: "postgresql", schema: path.relative(work, path.join(root, "lib/db/schema.ts")), out: "./drizzle" })};\n`,
    );
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(root, "node_modules/drizzle-kit/bin.cjs"), "generate", `--config=${config}`],
      { cwd: work, timeout: 90_000 },
    );
    expect(`${stdout}${stderr}`).toContain("No schema changes");
    expect(readdirSync(path.join(work, "drizzle")).filter((f) => f.endsWith(".sql")).length).toBe(
      readdirSync(path.join(root, "drizzle")).filter((f) => f.endsWith(".sql")).length,
    );
  }, 120_000);
});
