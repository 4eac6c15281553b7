"use server";

import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { clientErrorFor } from "@/lib/http/client-error";
import { acceptInvitation } from "@/lib/teams/members";

/** The invited person accepts; on success they land on the site's chat. */
export async function acceptInvitationAction(form: FormData) {
  const token = String(form.get("token") ?? "");
  const session = await currentSession();
  if (!session) redirect(`/login?next=${encodeURIComponent(`/invitations?token=${token}`)}`);
  let siteId: string;
  try {
    siteId = (await acceptInvitation(session.user, token)).siteId;
  } catch (error) {
    redirect(`/invitations?failed=${clientErrorFor(error, { action: "accept invitation" }).code}`);
  }
  redirect(`/sites/${siteId}/chat`);
}
