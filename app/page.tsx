import Link from "next/link";
import { currentSession } from "@/lib/auth/current";

export default async function HomePage() {
  const session = await currentSession();
  if (!session) {
    return (
      <main className="narrow">
        <h1>Edit your WordPress site by chatting</h1>
        <p>Connect your site once, then ask for changes in plain words. Every change is checked, logged and reversible.</p>
        <p>
          <Link className="button" href="/signup">
            Create an account
          </Link>{" "}
          or <Link href="/login">log in</Link>.
        </p>
      </main>
    );
  }
  return (
    <main className="narrow">
      <h1>Welcome{session.user.name ? `, ${session.user.name}` : ""}</h1>
      <p>
        <Link className="button" href="/connect">
          Connect a WordPress site
        </Link>
      </p>
    </main>
  );
}
