/** What the block-theme operations share: the active theme, its design items, and block edits of their markup. */
import { z } from "zod";
import { readItem, type SiteItem } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { BlockEditError } from "../blocks";
import { OperationError } from "./operation";

export type DesignItem = SiteItem & { state: Record<string, unknown> };

export const position = z.string().regex(/^[1-9]\d*(\.[1-9]\d*)*$/);

/** The active theme's directory name, checked to be a block theme (the site may have switched since pairing). */
export async function activeBlockTheme(client: SiteClient): Promise<string> {
  const { data } = await client.get<{ theme?: { stylesheet?: unknown; isBlockTheme?: unknown } }>(
    "/sitewright/v1/info",
  );
  const stylesheet = data?.theme?.stylesheet;
  if (typeof stylesheet !== "string" || data.theme?.isBlockTheme !== true) {
    throw new OperationError(
      "The site's theme is not a block theme (any more): this operation does not apply.",
      "not_block_theme",
    );
  }
  return stylesheet;
}

export async function readDesignItem(client: SiteClient, ref: string, missing: string): Promise<DesignItem> {
  const item = await readItem(client, ref);
  if (!item.exists || !item.state) throw new OperationError(missing, "not_found");
  return item as DesignItem;
}

/** Runs a block edit, turning its refusal into an error the model reads. */
export function edit<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof BlockEditError) throw new OperationError(error.message, "bad_block");
    throw error;
  }
}
