import { z } from "zod";

const itemIds = z.array(z.string().min(1).max(100)).min(1).max(1000).optional();
/** The last item the page drew (API.md v1.3): "Approve all" covers it and the items before it, nothing later. */
const upTo = z.string().min(1).max(100).optional();
const notBoth = (body: { itemIds?: string[]; upTo?: string }) => !(body.itemIds && body.upTo);
const notBothMessage = { message: "Give itemIds or upTo, not both.", path: ["upTo"] };

/** `POST .../undo` and `.../reject`: all the set's items, only these, or those up to the last one the page drew. */
export const itemsSchema = z.object({ itemIds, upTo }).strict().refine(notBoth, notBothMessage);

/** `PATCH .../items/:itemId`: the owner's own values for a waiting item's proposed fields (a job's queue). */
export const itemEditSchema = z
  .object({ after: z.record(z.string().max(100), z.union([z.string().max(100_000), z.boolean(), z.null()])) })
  .strict();

/** `POST .../apply`: all the set's waiting items or only these; other rehearsals of its sandbox to apply with it. */
export const applySchema = z
  .object({ itemIds, upTo, changeSetIds: z.array(z.string().uuid()).min(1).max(20).optional() })
  .strict()
  .refine(notBoth, notBothMessage);

/** `GET /sites/:id/changes`: a page size and the cursor the previous page gave (lib/changes/cursor.ts). */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: z.string().max(500).optional(),
});

/** `GET /sites/:id/changes/:changeSetId`: the cursor of the next page of items. */
export const itemsPageQuerySchema = z.object({ cursor: z.string().max(500).optional() });
