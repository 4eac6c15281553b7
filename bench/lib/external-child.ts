/** Runs one other benchmark module's function in its own process and prints `RESULT <json>` (see external.ts). */
import { pathToFileURL } from "node:url";

const [file, name] = process.argv.slice(2);
process.env.LOG_LEVEL ||= "warn";
const module = (await import(pathToFileURL(file!).href)) as Record<string, unknown>;
const run = module[name!];
if (typeof run !== "function") throw new Error(`${file} does not export ${name}()`);
const result = (await run()) as Record<string, number>;
process.stdout.write(`\nRESULT ${JSON.stringify(result)}\n`);
process.exit(0);
