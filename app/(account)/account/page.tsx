import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { isEmailVerified } from "@/lib/auth/email-verification";
import { ConnectedClients } from "./connected-clients";
import { EmailVerification } from "./email-verification";
import { ChangePasswordForm, DeleteAccountForm, ProfileForm, SignOutEverywhere } from "./sections";

export const metadata = { title: "Your account · Sitewright" };

export default async function AccountPage() {
  const session = await currentSession();
  if (!session) redirect("/login?next=/account");
  const { user } = session;
  return (
    <main className="narrow account">
      <h1>Your account</h1>
      <ProfileForm user={user} />
      <EmailVerification email={user.email} verified={await isEmailVerified({ userId: user.id })} />
      <ChangePasswordForm />
      <ConnectedClients userId={user.id} />
      <SignOutEverywhere />
      <DeleteAccountForm />
    </main>
  );
}
