/**
 * What an operation is: one thing the agent may do on a site, described for the model, validated by a zod
 * schema, gated by a token scope and a risk level, and carried out through the signed SiteClient only.
 */
import type { z } from "zod";
import type { SiteClient } from "@/lib/sites/types";

export type Risk = "read" | "write" | "destructive";

/** The plugin's token scopes (API.md, "Service → site requests"). */
export type Scope = "site:read" | "content:read" | "content:write" | "media:write" | "design:write" | "settings:write";

/** What the chat shows on a tool card: which page, and for writes the values before and after. */
export type OperationResult = {
  /** One sentence for the audit log and the card, written by us (never copied from site content). */
  summary: string;
  /** The page or post the operation was about, when there is one. */
  target?: { type: "page" | "post" | "media" | "menu" | "site"; id?: number; title?: string; link?: string };
  before?: unknown;
  after?: unknown;
  /** Whatever the model needs to read; comes from the site, so it is untrusted. */
  data?: unknown;
};

export type Operation<Input = unknown> = {
  name: string;
  /** Written for the model: what it does, when to use it, what it returns. */
  description: string;
  input: z.ZodType<Input>;
  scope: Scope;
  risk: Risk;
  /**
   * WordPress capabilities the REST routes check (core's permission callbacks), beyond what the scope lends by
   * itself: the plugin reports the token's capabilities in `/sitewright/v1/info` → `token.capabilities`.
   */
  capabilities?: string[];
  /** A feature the plugin must report (`/sitewright/v1/info` → `features`) because core has no route for it. */
  pluginFeature?: string;
  run(client: SiteClient, input: Input): Promise<OperationResult>;
};

/** Keeps each operation file typed against its own schema. */
export function defineOperation<Schema extends z.ZodType>(
  operation: Omit<Operation<z.output<Schema>>, "input"> & { input: Schema },
): Operation<z.output<Schema>> {
  return operation as Operation<z.output<Schema>>;
}

/** An expected failure of an operation (the page does not exist, the block position is wrong...): goes to the model as `{ error }`. */
export class OperationError extends Error {
  constructor(
    message: string,
    readonly code: string = "operation_failed",
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "OperationError";
  }
}
