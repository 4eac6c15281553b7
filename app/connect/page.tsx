import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { env } from "@/lib/env";
import { listSites } from "@/lib/sites/sites";
import { PairingWizard } from "./pairing-wizard";

export const metadata = { title: "Connect a site · Sitewright" };

type Search = { site?: string | string[]; url?: string | string[] };

export default async function ConnectPage({ searchParams }: { searchParams: Promise<Search> }) {
  const session = await currentSession();
  if (!session) redirect("/login?next=/connect");
  const search = await searchParams;
  const sites = await listSites({ userId: session.userId });
  const unfinished = sites.filter((site) => site.status === "pending" || site.status === "redeemed");
  const resume = typeof search.site === "string" ? unfinished.find((site) => site.id === search.site) : undefined;
  const initialUrl = typeof search.url === "string" ? search.url.slice(0, 2048) : resume?.url;
  return (
    <main className="narrow">
      <h1>Connect a WordPress site</h1>
      <PairingWizard appUrl={env().APP_URL} initialUrl={initialUrl} unfinished={unfinished} resume={resume} />
    </main>
  );
}
