import { z } from "zod";
import { MAX_SUBSET_IDS } from "@/lib/sandbox/subset";

export const createSandboxSchema = z.object({
  /** A paired site to copy a subset of into the sandbox. */
  siteId: z.string().min(1).max(200).optional(),
  ttlMinutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .optional(),
  /** Which posts/pages to copy (default: the published pages and the latest posts). */
  postIds: z.array(z.number().int().positive()).min(1).max(MAX_SUBSET_IDS).optional(),
});
