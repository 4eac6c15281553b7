import type { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";

export type RequestContext = { requestId: string };
export declare const REQUEST_ID_HEADER: "x-request-id";
export declare function requestContext(): AsyncLocalStorage<RequestContext>;
export declare function requestIdFor(incoming: string | string[] | undefined, hops: number): string;
export declare function pathWithoutQuery(url: string | undefined): string;
export declare function accessRecord(input: {
  method: string | undefined;
  url: string | undefined;
  status: number;
  startedAt: number;
  requestId: string;
}): Record<string, unknown>;
export declare function accessLogEnabled(): boolean;
export declare function withRequestContext<T>(
  req: IncomingMessage,
  res: ServerResponse,
  hops: number,
  next: () => T,
  write?: (line: string) => void,
): T;
