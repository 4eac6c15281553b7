import { z } from "zod";

/** `POST .../undo` and `.../apply`: all the set's items, or only these. */
export const itemsSchema = z
  .object({ itemIds: z.array(z.string().min(1).max(100)).min(1).max(200).optional() })
  .strict();
