/** The account page's cards, one function each (the page only lays them out). */
import { ConfirmButton } from "@/app/confirm-button";
import type { PublicUser } from "@/lib/auth/session";
import { AccountForm } from "../account-form";
import { changePasswordAction, deleteAccountAction, signOutEverywhereAction, updateProfileAction } from "../actions";

export function ProfileForm({ user }: { user: PublicUser }) {
  return (
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
          hint: "Needed only to change your email. A new address gets a link to confirm it.",
        },
      ]}
    />
  );
}

export function ChangePasswordForm() {
  return (
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
          hint: "At least 15 characters. Your other sessions are signed out and connected applications disconnected.",
        },
      ]}
    />
  );
}

export function SignOutEverywhere() {
  return (
    <section className="card" aria-labelledby="everywhere-title">
      <h2 id="everywhere-title">Sign out everywhere</h2>
      <p>
        Ends every session of this account, on this device and all others, and disconnects every connected application.
      </p>
      <ConfirmButton
        label="Sign out everywhere"
        title="Sign out everywhere?"
        confirmLabel="Sign out everywhere"
        action={signOutEverywhereAction}
        className="secondary"
      >
        <p>
          You will need to log in again on every device, this one included, and to connect again the applications you
          use.
        </p>
      </ConfirmButton>
    </section>
  );
}

export function DeleteAccountForm() {
  return (
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
  );
}
