import type { ReactNode } from "react";
import Link from "next/link";
import { currentSession } from "@/lib/auth/current";
import { logOutAction } from "./(account)/actions";
import "./globals.css";

export const metadata = { title: "Sitewright", description: "Edit your WordPress site by chatting with an assistant." };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const session = await currentSession().catch(() => undefined);
  return (
    <html lang="en">
      <body>
        <header className="topbar">
          <Link href="/" className="brand">
            Sitewright
          </Link>
          <nav>
            {session ? (
              <>
                <span className="muted" data-testid="signed-in-as">{session.user.email}</span>
                <form action={logOutAction}>
                  <button type="submit" className="link">
                    Log out
                  </button>
                </form>
              </>
            ) : (
              <>
                <Link href="/login">Log in</Link>
                <Link href="/signup">Sign up</Link>
              </>
            )}
          </nav>
        </header>
        {children}
      </body>
    </html>
  );
}
