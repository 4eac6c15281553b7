/**
 * Pairing: 20 plugins redeeming their codes at the same moment, through the production server. Each round starts
 * 20 pairings, then fires the 20 redeems at once; p50 and p95 over all rounds.
 */
import type { RunningApp } from "./lib/app";
import { figure, type Figure } from "./lib/figures";
import { percentile, timed } from "./lib/stats";
import { pluginRedeemBody } from "@/test/pairing";
import { sized } from "./lib/smoke";

const CLIENTS = sized(20, 2);
const ROUNDS = sized(5);
let port = 20000;

async function postJson(app: RunningApp, pathname: string, body: unknown, cookie?: string) {
  const response = await fetch(`${app.url}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: text ? JSON.parse(text) : undefined,
    cookie: response.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; "),
  };
}

export async function redeemLatencies(app: RunningApp): Promise<number[]> {
  const signup = await postJson(app, "/auth/signup", {
    email: `pairing${Date.now().toString(36)}@example.com`,
    password: "a long and unusual passphrase 7",
  });
  if (signup.status !== 201) throw new Error(`sign-up answered ${signup.status}`);
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS + 1; round++) {
    const pairings = await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        const url = `https://localhost:${port++}`;
        const res = await postJson(app, "/sites/pair", { url }, signup.cookie);
        if (res.status !== 201) throw new Error(`pair answered ${res.status}: ${JSON.stringify(res.json)}`);
        return { url, code: res.json.code as string };
      }),
    );
    const times = await Promise.all(
      pairings.map(({ url, code }) =>
        timed(async () => {
          const res = await postJson(app, "/sites/redeem", pluginRedeemBody(url, code));
          if (res.status !== 200) throw new Error(`redeem answered ${res.status}: ${JSON.stringify(res.json)}`);
        }),
      ),
    );
    if (round > 0) samples.push(...times.map((t) => t.ms)); // the first round warms up
  }
  return samples;
}

export async function benchPairing(app: RunningApp, store: string): Promise<Figure[]> {
  const samples = await redeemLatencies(app);
  return [
    figure("Pairing", `redeem p50, ${CLIENTS} concurrent plugins (${store})`, percentile(samples, 50), "ms"),
    figure("Pairing", `redeem p95, ${CLIENTS} concurrent plugins (${store})`, percentile(samples, 95), "ms"),
  ];
}
