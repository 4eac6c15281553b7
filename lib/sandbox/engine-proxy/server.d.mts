/** Types of server.mjs (plain JavaScript: the proxy runs without a build step). */
import type { Server } from "node:http";
import type { ProxySettings } from "./policy.mjs";

export type ProxyLog = (level: string, message: string, fields?: Record<string, unknown>) => void;

export declare function createEngineProxy(options: {
  upstream: string;
  settings: ProxySettings;
  log?: ProxyLog;
}): Server;

export declare function startEngineProxy(options: {
  listen: string;
  upstream: string;
  settings: ProxySettings;
  log?: ProxyLog;
}): Promise<{ server: Server; close(): Promise<void> }>;
