import Link from "next/link";

export const metadata = { title: "Page not found · Sitewright" };

/** Also what another user's site or conversation looks like: it never says whether it exists. */
export default function NotFound() {
  return (
    <main className="narrow">
      <h1>Page not found</h1>
      <p>This page does not exist, or it belongs to another account.</p>
      <p>
        <Link className="button" href="/">
          Go to your sites
        </Link>
      </p>
    </main>
  );
}
