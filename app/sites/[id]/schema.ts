import { z } from "zod";
import { MEMBER_ROLES } from "@/lib/db/schema";

export const siteSettingsSchema = z
  .object({
    requireSecondPerson: z.boolean().optional(),
    /** Days of audit kept (the chain is cut only at a checkpoint); null keeps everything. */
    auditRetentionDays: z.number().int().min(1).max(36500).nullable().optional(),
  })
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, { message: "name at least one setting" });

export const inviteSchema = z.object({ email: z.email().max(320), role: z.enum(MEMBER_ROLES) }).strict();

export const memberRoleSchema = z.object({ role: z.enum(MEMBER_ROLES) }).strict();
