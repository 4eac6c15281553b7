/**
 * `npm run audit:verify <file> [--key <base64url public key>]`: checks an exported audit log offline (docs/teams.md).
 * Exit 0 when intact; otherwise exit 1 naming the first line that does not fit. `--key` (repeatable) pins the
 * service's public key, as `GET /.well-known/sitewright-audit-key` answers it.
 */
import { readFileSync } from "node:fs";
import { verifyAuditLog } from "@/lib/audit/verify";

function main(argv: string[]): number {
  const keys: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--key") keys.push(argv[++i] ?? "");
    else files.push(argv[i]!);
  }
  if (files.length !== 1) {
    console.error("usage: npm run audit:verify <export.jsonl> [--key <public key>]");
    return 2;
  }
  const outcome = verifyAuditLog(readFileSync(files[0]!, "utf8"), keys);
  if (!outcome.ok) {
    console.error(`line ${outcome.line}: ${outcome.reason}`);
    return 1;
  }
  console.log(
    `ok: entries ${outcome.first}–${outcome.last} (${outcome.entries} lines, ${outcome.checkpoints} signed checkpoints, key ${outcome.keyIds.join(", ")})`,
  );
  return 0;
}

process.exitCode = main(process.argv.slice(2));
