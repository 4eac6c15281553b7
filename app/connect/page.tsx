import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { PairingWizard } from "./pairing-wizard";

export const metadata = { title: "Connect a site · Sitewright" };

export default async function ConnectPage() {
  if (!(await currentSession())) redirect("/login?next=/connect");
  return (
    <main className="narrow">
      <h1>Connect a WordPress site</h1>
      <PairingWizard />
    </main>
  );
}
