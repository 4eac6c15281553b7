/**
 * Request signing: sign + verify per second in TypeScript (lib/sites/signing.ts), and what the plugin's check costs
 * per request in PHP (bench/php/verify.php, with the plugin's own Sitewright_Signature), for the same request:
 * a POST with a query and a 2 KiB JSON body.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { percentEncode, sign, verify } from "@/lib/sites/signing";
import { repoRoot } from "./lib/app";
import { figure, type Figure } from "./lib/figures";
import { sized } from "./lib/smoke";

const SECRET = `sws_${"s".repeat(60)}`;
const QUERY: Array<[string, string]> = [
  ["context", "edit"],
  ["_fields", "id,title,content"],
];
const REQUEST = {
  timestamp: String(Date.now()),
  method: "POST",
  route: "/wp/v2/pages/12",
  query: QUERY,
  body: JSON.stringify({
    title: "About us",
    content: `<!-- wp:paragraph --><p>${"Lorem ipsum dolor sit amet. ".repeat(70)}</p><!-- /wp:paragraph -->`,
  }),
};

function typescriptOpsPerSecond(seconds: number): number {
  let operations = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < 1000; i++) {
      const header = sign(SECRET, REQUEST);
      if (!verify(SECRET, REQUEST, header)) throw new Error("the TypeScript verifier refused its own signature");
    }
    operations += 1000;
    elapsed = (performance.now() - started) / 1000;
  } while (elapsed < seconds);
  return operations / elapsed;
}

function phpMicrosecondsPerVerify(seconds: number): number {
  const input = {
    secret: SECRET,
    timestamp: REQUEST.timestamp,
    method: REQUEST.method,
    route: REQUEST.route,
    query: QUERY.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join("&"),
    body: REQUEST.body,
    header: sign(SECRET, REQUEST),
  };
  const output = execFileSync("php", [path.join(repoRoot, "bench/php/verify.php"), String(seconds)], {
    input: JSON.stringify(input),
  }).toString();
  const result = JSON.parse(output) as { iterations: number; seconds: number; ok: boolean };
  if (!result.ok) throw new Error("the plugin's verifier refused a signature made by the TypeScript signer");
  return (result.seconds / result.iterations) * 1e6;
}

export async function benchSigning(): Promise<Figure[]> {
  typescriptOpsPerSecond(0.3); // warm up the JIT
  const ts = typescriptOpsPerSecond(sized(2, 0.2));
  const figures: Figure[] = [
    figure("Signing", "TypeScript sign + verify (POST, 2 KiB body)", ts, "ops/s"),
    figure("Signing", "TypeScript sign + verify, per operation", 1e6 / ts, "µs"),
  ];
  try {
    figures.push(
      figure("Signing", "plugin (PHP) verify per request, same request", phpMicrosecondsPerVerify(sized(2, 0.2)), "µs"),
    );
  } catch (error) {
    figures.push(
      figure(
        "Signing",
        "plugin (PHP) verify per request",
        `not available: ${(error as Error).message.split("\n")[0]}`,
        "",
      ),
    );
  }
  return figures;
}
