/**
 * Sign-up and login latency through the production server against the bare scrypt they are built on (same
 * parameters, measured in this process, interleaved so drift hits both alike), and /health's p99 while a burst of
 * sign-ups keeps scrypt busy. Goals (issue 7): sign-up and login p50 at most 1.15× scrypt; /health p99 during the
 * burst at most 2× idle.
 */
import { CURRENT_PARAMS, hashPassword, verifyPassword } from "@/lib/auth/password";
import type { RunningApp } from "./lib/app";
import { figure, type Figure } from "./lib/figures";
import { load, type LoadFigures } from "./lib/load";
import { median, timed } from "./lib/stats";
import { sized } from "./lib/smoke";

const SAMPLES = sized(12);
const PASSWORD = "a long and unusual passphrase 7";
const BURST_CLIENTS = sized(8, 2);
const HEALTH_SECONDS = sized(5);

let counter = 0;
const nextEmail = () => `bench${Date.now().toString(36)}${counter++}@example.com`;

async function post(app: RunningApp, pathname: string, body: unknown): Promise<number> {
  const response = await fetch(`${app.url}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

async function expectStatus(work: Promise<number>, status: number, what: string) {
  const got = await work;
  if (got !== status) throw new Error(`${what} answered ${got}, expected ${status}`);
}

export async function benchAuth(app: RunningApp): Promise<Figure[]> {
  const s = "Accounts";
  // Warm up both paths (route modules, the dummy hash, the thread pool).
  const warm = nextEmail();
  await expectStatus(post(app, "/auth/signup", { email: warm, password: PASSWORD }), 201, "sign-up");
  await expectStatus(post(app, "/auth/login", { email: warm, password: PASSWORD }), 200, "login");
  const stored = await hashPassword(PASSWORD);

  const signup: number[] = [];
  const scrypt: number[] = [];
  const emails: string[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const email = nextEmail();
    emails.push(email);
    signup.push(
      (await timed(() => expectStatus(post(app, "/auth/signup", { email, password: PASSWORD }), 201, "sign-up"))).ms,
    );
    scrypt.push((await timed(() => hashPassword(PASSWORD))).ms);
  }
  const login: number[] = [];
  const verify: number[] = [];
  for (const email of emails) {
    login.push(
      (await timed(() => expectStatus(post(app, "/auth/login", { email, password: PASSWORD }), 200, "login"))).ms,
    );
    verify.push((await timed(() => verifyPassword(PASSWORD, stored))).ms);
  }

  const burst = await healthDuringSignupBurst(app);
  const signupRatio = median(signup) / median(scrypt);
  const loginRatio = median(login) / median(verify);
  const params = `N=2^${CURRENT_PARAMS.logN}, r=${CURRENT_PARAMS.r}, p=${CURRENT_PARAMS.p}`;
  return [
    figure(s, `bare scrypt hash p50 (${params})`, median(scrypt), "ms"),
    figure(s, "sign-up p50 (HTTP, PostgreSQL)", median(signup), "ms"),
    figure(s, "sign-up p50 / scrypt p50", signupRatio, "×", { text: "≤ 1.15×", ok: signupRatio <= 1.15 }),
    figure(s, "bare scrypt verify p50", median(verify), "ms"),
    figure(s, "login p50 (HTTP, PostgreSQL)", median(login), "ms"),
    figure(s, "login p50 / verify p50", loginRatio, "×", { text: "≤ 1.15×", ok: loginRatio <= 1.15 }),
    ...burstFigures(burst, ""),
  ];
}

export type Burst = { idle: LoadFigures; during: LoadFigures; signups: number };

/** /health p99 idle, then with sign-ups in flight the whole time (each client signs up again as soon as it can). */
export async function healthDuringSignupBurst(app: RunningApp): Promise<Burst> {
  await expectStatus(post(app, "/auth/signup", { email: nextEmail(), password: PASSWORD }), 201, "sign-up");
  const idle = await load(`${app.url}/health`, { connections: 2, seconds: HEALTH_SECONDS });
  let bursting = true;
  let signups = 0;
  const clients = Array.from({ length: BURST_CLIENTS }, async () => {
    while (bursting) {
      await expectStatus(
        post(app, "/auth/signup", { email: nextEmail(), password: PASSWORD }),
        201,
        "sign-up during the burst",
      );
      signups++;
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 1000)); // let the thread pool fill
  const during = await load(`${app.url}/health`, { connections: 2, seconds: HEALTH_SECONDS });
  bursting = false;
  await Promise.all(clients);
  return { idle, during, signups };
}

export function burstFigures({ idle, during, signups }: Burst, variant: string): Figure[] {
  const s = "Accounts";
  const ratio = during.p99Ms / Math.max(idle.p99Ms, 1);
  const goal = variant ? undefined : { text: "≤ 2×", ok: ratio <= 2 };
  return [
    figure(s, `/health p99 idle, 2 connections${variant}`, idle.p99Ms, "ms"),
    figure(s, `/health p99 during a sign-up burst of ${BURST_CLIENTS} clients${variant}`, during.p99Ms, "ms"),
    figure(s, `/health p99 burst / idle${variant}`, ratio, "×", goal),
    figure(s, `/health throughput during the burst${variant}`, during.requestsPerSecond, "req/s"),
    figure(s, `sign-ups completed in the ${HEALTH_SECONDS} s burst${variant}`, signups, ""),
  ];
}
