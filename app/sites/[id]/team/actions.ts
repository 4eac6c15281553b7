"use server";

import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { MEMBER_ROLES, type MemberRole } from "@/lib/db/schema";
import { clientErrorFor } from "@/lib/http/client-error";
import { changeMemberRole, inviteMember, removeMember } from "@/lib/teams/members";
import { changeSiteSettings } from "@/lib/teams/site-settings";

const roleOf = (value: FormDataEntryValue | null): MemberRole =>
  (MEMBER_ROLES as readonly string[]).includes(String(value)) ? (value as MemberRole) : "viewer";

/** Runs one owner's act and comes back to the team page saying what happened (a code; the page says it in words). */
async function act(
  form: FormData,
  work: (person: NonNullable<Awaited<ReturnType<typeof currentSession>>>["user"], siteId: string) => Promise<unknown>,
  done: string,
) {
  const siteId = String(form.get("siteId") ?? "");
  const session = await currentSession();
  if (!session) redirect(`/login?next=${encodeURIComponent(`/sites/${siteId}/team`)}`);
  let outcome = done;
  try {
    await work(session.user, siteId);
  } catch (error) {
    outcome = `error-${clientErrorFor(error, { action: "team" }).code}`;
  }
  redirect(`/sites/${siteId}/team?outcome=${outcome}`);
}

export async function inviteAction(form: FormData) {
  await act(
    form,
    (person, siteId) =>
      inviteMember(person, { siteId, email: String(form.get("email") ?? ""), role: roleOf(form.get("role")) }),
    "invited",
  );
}

export async function changeRoleAction(form: FormData) {
  await act(
    form,
    (person, siteId) =>
      changeMemberRole(person, {
        siteId,
        memberId: String(form.get("memberId") ?? ""),
        role: roleOf(form.get("role")),
      }),
    "role-changed",
  );
}

export async function removeMemberAction(form: FormData) {
  await act(
    form,
    (person, siteId) => removeMember(person, { siteId, memberId: String(form.get("memberId") ?? "") }),
    "removed",
  );
}

export async function secondPersonAction(form: FormData) {
  await act(
    form,
    (person, siteId) =>
      changeSiteSettings(person, siteId, { requireSecondPerson: form.get("requireSecondPerson") === "on" }),
    "saved",
  );
}
