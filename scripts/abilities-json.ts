/** Writes plugin/abilities.json from the agent's operations (lib/agent/abilities.ts). */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { abilityManifestJson } from "@/lib/agent/abilities";

const target = path.resolve(import.meta.dirname, "../plugin/abilities.json");
writeFileSync(target, abilityManifestJson());
process.stdout.write(`wrote ${target}\n`);
