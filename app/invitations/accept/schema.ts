import { z } from "zod";

/** The single-use token from the invitation's link. */
export const acceptSchema = z.object({ token: z.string().min(1).max(200) }).strict();
