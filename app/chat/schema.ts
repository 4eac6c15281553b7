import { z } from "zod";

/**
 * `POST /chat`: a new message, or (to continue a turn that waits for approval) the user's answers to its
 * approval requests. Length limits beyond "not empty" are checked by the handler, which answers 413.
 */
export const chatSchema = z
  .strictObject({
    siteId: z.string().min(1).max(100),
    conversationId: z.string().min(1).max(100).optional(),
    message: z.string().optional(),
    /** Files the owner attached to this message (`POST /sites/:id/uploads`), by upload id. */
    uploads: z.array(z.uuid()).min(1).max(10).optional(),
    /** `sandbox`: work in a sandbox copy of the site (default when sandboxes are on); `live`: the site itself. */
    mode: z.enum(["live", "sandbox"]).optional(),
    approvals: z
      .array(
        z.strictObject({
          id: z.string().min(1).max(200),
          approved: z.boolean(),
          reason: z.string().max(500).optional(),
        }),
      )
      .min(1)
      .max(20)
      .optional(),
  })
  .superRefine((body, ctx) => {
    if (body.approvals) {
      if (body.message !== undefined || body.uploads)
        ctx.addIssue({ code: "custom", path: ["message"], message: "Send either a message or approvals, not both." });
      if (!body.conversationId)
        ctx.addIssue({ code: "custom", path: ["conversationId"], message: "Approvals belong to a conversation." });
    } else if ((!body.message || body.message.trim() === "") && !body.uploads) {
      ctx.addIssue({ code: "custom", path: ["message"], message: "Write a message." });
    }
  });
