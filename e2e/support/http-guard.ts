/**
 * An HTTP client for the contract suites that keeps every answer, so a suite can fail on the whole class of bug:
 * a 5xx for a client's mistake. The only 5xx the contract allows are the ones it names for conditions that are
 * not the client's doing (a site that cannot be reached or refused us, a feature that is not configured).
 */
import { expect } from "@playwright/test";

const SERVER_SIDE_CODES = new Set(["site_unreachable", "site_rejected", "agent_unavailable", "sandbox_unavailable"]);

export type Answer = { method: string; path: string; status: number; code?: string; json: any; headers: Headers };

export class GuardedClient {
  readonly answers: Answer[] = [];
  private cookie?: string;

  constructor(public baseUrl: string) {}

  async request(
    method: string,
    path: string,
    options: { json?: unknown; body?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { Origin: this.baseUrl, ...options.headers };
    if (this.cookie) headers.Cookie = this.cookie;
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["Content-Type"] ??= "application/json";
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body, redirect: "manual" });
    const setCookie = response.headers.getSetCookie().find((c) => /sw_session=/.test(c));
    if (setCookie) this.cookie = setCookie.split(";")[0];
    const text = await response.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const answer: Answer = {
      method,
      path,
      status: response.status,
      code: json?.error?.code,
      json,
      headers: response.headers,
    };
    this.answers.push(answer);
    return answer;
  }

  /** Calls and checks the contract's status and code (and that the body has the contract's error shape). */
  async expectError(
    method: string,
    path: string,
    status: number,
    code: string,
    options: Parameters<GuardedClient["request"]>[2] = {},
  ) {
    const answer = await this.request(method, path, options);
    expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.json)}`).toBe(status);
    expect(answer.json?.error?.code, `${method} ${path}`).toBe(code);
    expect(typeof answer.json?.error?.message, `${method} ${path}`).toBe("string");
    return answer;
  }

  signedOut() {
    const copy = new GuardedClient(this.baseUrl);
    return copy;
  }
}

/** Every 5xx any of these clients received that the contract does not name as the server's condition. */
export function unexpectedServerErrors(...clients: GuardedClient[]): Answer[] {
  return clients.flatMap((client) =>
    client.answers.filter((a) => a.status >= 500 && !(a.code && SERVER_SIDE_CODES.has(a.code) && a.status !== 500)),
  );
}
