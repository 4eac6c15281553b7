/** Types of policy.mjs (plain JavaScript: the proxy runs without a build step). */
export declare const LABEL_SANDBOX: "sitewright.sandbox";
export declare const SANDBOX_USER: "10001:10001";
export declare const SANDBOX_PORT: "8080/tcp";

export type Cidr = { base: number; prefix: number; size: number };

export type ProxySettings = {
  /** The image references a sandbox may run: any tag of the sandbox image repository. */
  imagePattern: RegExp;
  networkPool: Cidr;
  maxSandboxes: number;
};

export type OperationKind =
  | "ping"
  | "imageInspect"
  | "networkCreate"
  | "networkList"
  | "networkRemove"
  | "containerCreate"
  | "containerList"
  | "container"
  | "execStart"
  | "execInspect";

export type Operation = {
  kind: OperationKind;
  /** For `container`: start, json (inspect), logs, exec or remove. */
  action?: string;
  /** The image, network, container or exec the path names, as given. */
  target?: string;
  /** The path without its version prefix. */
  path: string;
  params: URLSearchParams;
  method?: string;
};

export declare class Refusal extends Error {
  readonly status: number;
  constructor(message: string, status?: number);
}

export declare function proxySettings(env: Record<string, string | undefined>): ProxySettings;
export declare function parseCidr(cidr: string): Cidr;
export declare function matchRequest(method: string, rawUrl: string): Operation;
export declare function checkContainerCreate(body: unknown, name: string | null, settings: ProxySettings): unknown;
export declare function checkNetworkCreate(body: unknown, settings: ProxySettings): unknown;
export declare function checkExecCreate(body: unknown): unknown;
export declare function checkExecStart(body: unknown): { Detach: false; Tty: false };
export declare function sandboxListQuery(params: URLSearchParams): URLSearchParams;
export declare function containerQuery(action: "remove" | "logs", params: URLSearchParams): URLSearchParams;
