import { z } from "zod";

/** `POST .../undo` and `.../apply`: all the set's items, or only these. */
export const itemsSchema = z
  .object({ itemIds: z.array(z.string().min(1).max(100)).min(1).max(1000).optional() })
  .strict();

/** `PATCH .../items/:itemId`: the owner's own values for a waiting item's proposed fields (a job's queue). */
export const itemEditSchema = z
  .object({ after: z.record(z.string().max(100), z.union([z.string().max(100_000), z.boolean(), z.null()])) })
  .strict();

/** `POST .../apply`: all the set's waiting items or only these; other rehearsals of its sandbox to apply with it. */
export const applySchema = z
  .object({
    itemIds: z.array(z.string().min(1).max(100)).min(1).max(1000).optional(),
    changeSetIds: z.array(z.string().uuid()).min(1).max(20).optional(),
  })
  .strict();

/** `GET /sites/:id/changes`: a page size and the cursor the previous page gave (lib/changes/cursor.ts). */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  cursor: z.string().max(500).optional(),
});

/** `GET /sites/:id/changes/:changeSetId`: the cursor of the next page of items. */
export const itemsPageQuerySchema = z.object({ cursor: z.string().max(500).optional() });
