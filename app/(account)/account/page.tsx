import { redirect } from "next/navigation";
import { ConfirmButton } from "@/app/confirm-button";
import { currentSession } from "@/lib/auth/current";
import { AccountForm } from "../account-form";
import { ConnectedClients } from "./connected-clients";
import { changePasswordAction, deleteAccountAction, signOutEverywhereAction, updateProfileAction } from "../actions";

export const metadata = { title: "Your account · Sitewright" };

export default async function AccountPage() {
  const session = await currentSession();
  if (!session) redirect("/login?next=/account");
  const { user } = session;
  return (
    <main className="narrow account">
      <h1>Your account</h1>
      <AccountForm
        title="Name and email"
        testId="profile-form"
        action={updateProfileAction}
        submitLabel="Save"
        fields={[
          { name: "name", label: "Name", type: "text", autoComplete: "name", defaultValue: user.name ?? "" },
          {
            name: "email",
            label: "Email",
            type: "email",
            autoComplete: "email",
            required: true,
            defaultValue: user.email,
          },
          {
            name: "currentPassword",
            label: "Current password",
            type: "password",
            autoComplete: "current-password",
            hint: "Needed only to change your email.",
          },
        ]}
      />
      <AccountForm
        title="Change password"
        testId="password-form"
        action={changePasswordAction}
        submitLabel="Change password"
        fields={[
          {
            name: "currentPassword",
            label: "Current password",
            type: "password",
            autoComplete: "current-password",
            required: true,
          },
          {
            name: "newPassword",
            label: "New password",
            type: "password",
            autoComplete: "new-password",
            required: true,
            hint: "At least 15 characters. Your other sessions are signed out.",
          },
        ]}
      />
      <ConnectedClients userId={user.id} />
      <section className="card" aria-labelledby="everywhere-title">
        <h2 id="everywhere-title">Sign out everywhere</h2>
        <p>Ends every session of this account, on this device and all others.</p>
        <ConfirmButton
          label="Sign out everywhere"
          title="Sign out everywhere?"
          confirmLabel="Sign out everywhere"
          action={signOutEverywhereAction}
          className="secondary"
        >
          <p>You will need to log in again on every device, this one included.</p>
        </ConfirmButton>
      </section>
      <AccountForm
        title="Delete your account"
        testId="delete-form"
        action={deleteAccountAction}
        submitLabel="Delete my account and its data"
        danger
        fields={[
          {
            name: "password",
            label: "Password",
            type: "password",
            autoComplete: "current-password",
            required: true,
            hint: "Deletes your sites' connections (each site is told to revoke its key), conversations and activity log. This cannot be undone.",
          },
        ]}
      />
    </main>
  );
}
