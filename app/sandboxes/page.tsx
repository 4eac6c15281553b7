import Link from "next/link";
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { getSandboxManager } from "@/lib/sandbox";
import { sandboxConfig } from "@/lib/sandbox/config";
import { listSites } from "@/lib/sites/sites";
import { SandboxPanel } from "./sandbox-panel";

export const metadata = { title: "Sandboxes · Sitewright" };

/** The sandbox panel: start a blank sandbox or a copy of a site, open it, sign in to its wp-admin, delete it. */
export default async function SandboxesPage() {
  const session = await currentSession();
  if (!session) redirect(`/login?next=${encodeURIComponent("/sandboxes")}`);
  const config = sandboxConfig();
  if (!config.enabled) {
    return (
      <main>
        <p>
          <Link href="/">← Your sites</Link>
        </p>
        <h1>Sandboxes</h1>
        <p className="card">
          Sandboxes are not enabled on this service. Changes go to your live site, each waiting for your approval.
        </p>
      </main>
    );
  }
  const [sandboxes, sites] = await Promise.all([
    getSandboxManager().listSandboxes({ userId: session.userId }),
    listSites({ userId: session.userId }),
  ]);
  return (
    <main>
      <p>
        <Link href="/">← Your sites</Link>
      </p>
      <h1>Sandboxes</h1>
      <p className="muted">
        A sandbox is a disposable WordPress: a blank one, or a copy of your site&apos;s pages, menus and styles. Nothing
        you do in it reaches your live site. Each one is deleted when its time runs out; you can hold{" "}
        {config.maxPerUser} at once.
      </p>
      <SandboxPanel
        sandboxes={sandboxes}
        sites={sites
          .filter((site) => site.status === "active")
          .map((site) => ({ id: site.id, label: site.name ?? site.url }))}
      />
    </main>
  );
}
