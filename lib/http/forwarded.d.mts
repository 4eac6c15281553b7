import type { IncomingMessage } from "node:http";

export declare const CLIENT_IP_HEADER: "x-sitewright-client-ip";
export declare const CLIENT_IP_ENV: "SITEWRIGHT_CLIENT_IP_HEADER";
export declare const MAX_PROXY_HOPS: number;
export declare function normalizeAddress(value: unknown): string | undefined;
export declare function clientAddress(input: {
  peer: string | undefined;
  forwardedFor: string | string[] | undefined | null;
  hops: number;
}): string;
export declare function parseProxyHops(value: unknown): number;
export declare function stampClientAddress(req: IncomingMessage, hops: number): string;
