"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { now } from "@/lib/clock";
import { revokeGrant } from "@/lib/db/queries";

/** Disconnects one of the owner's MCP clients: the grant and every token issued under it are revoked. */
export async function revokeConnectedClientAction(form: FormData) {
  const session = await currentSession();
  if (!session) redirect("/login?next=/account");
  const grantId = form.get("grantId");
  if (typeof grantId === "string") await revokeGrant({ id: grantId, userId: session.userId, now: now() });
  revalidatePath("/account");
}
