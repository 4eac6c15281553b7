/**
 * What an operation is: one thing the agent may do on a site, described for the model, validated by a zod
 * schema, gated by a token scope and a risk level, and carried out through the signed SiteClient only.
 */
import type { z } from "zod";
import type { PlannedItem } from "@/lib/changes/plan";
import type { SiteClient } from "@/lib/sites/types";

export type Risk = "read" | "write" | "destructive";

/** The plugin's token scopes (docs/signing.md). */
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

/**
 * What a write would do, computed before anything is written: the items it changes (with the versions read and
 * the diff as the owner reads it). The agent's write path stores it, waits for the owner's click when visitors
 * would see it, and has the plugin write exactly these items, each only over the version it was planned against.
 */
export type WritePlan = {
  summary: string;
  target?: OperationResult["target"];
  items: PlannedItem[];
  /** What the model gets back besides the summary (ids of what was made...); may use the written items. */
  data?: (written: Array<{ ref: string; version: string | null }>) => unknown;
};

/** A file to put on the site: one the owner attached in the chat (`upload:<id>`), or an image at an https address. */
export type MediaSource = { uploadId: string } | { url: string };

/** An attachment Sitewright has just made on the site: used by nothing yet, so visitors do not see it. */
export type PlacedMedia = {
  id: number;
  url: string;
  mime: string;
  name: string;
  alt: string;
  width?: number;
  height?: number;
};

/** What a plan may do besides reading the site. */
export type PlanContext = {
  /**
   * Uploads a file as an attachment, written at once (like a draft: nothing uses it yet) and recorded in the turn's
   * change set, so undo deletes it; the plan then uses it, and that use waits for the click when visible.
   */
  placeMedia(source: MediaSource, details: { alt?: string; caption?: string; title?: string }): Promise<PlacedMedia>;
};

export type Operation<Input = unknown> = {
  name: string;
  /** What the chat's card calls it, for a person: "Publish a page". */
  label: string;
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
  /**
   * The kind of theme the operation fits (`/sitewright/v1/info` → `theme.isBlockTheme`): block themes keep their
   * design in navigation posts, global styles and template parts; classic themes in menus and Additional CSS.
   */
  theme?: "block" | "classic";
  /**
   * Starts a bulk job instead of writing (docs/bulk-jobs.md): the input is the job's spec, handed to the turn's
   * job starter; the job's items wait for the owner's review as one queue.
   */
  startsJob?: true;
  /** Sends the model an image: offered only when the operator says the model can see images (`AGENT_VISION`). */
  vision?: true;
  /** Reads (and the few writes the items route cannot express yet) run directly. */
  run?(client: SiteClient, input: Input): Promise<OperationResult>;
  /** Writes plan first; the write path (lib/agent/writes.ts) applies the plan. */
  plan?(client: SiteClient, input: Input, context?: PlanContext): Promise<WritePlan>;
};

/** Keeps each operation file typed against its own schema. */
export function defineOperation<Schema extends z.ZodType, const Name extends string>(
  operation: Omit<Operation<z.output<Schema>>, "input" | "name"> & { input: Schema; name: Name },
): Operation<z.output<Schema>> & { name: Name; input: Schema } {
  return operation as Operation<z.output<Schema>> & { name: Name; input: Schema };
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
