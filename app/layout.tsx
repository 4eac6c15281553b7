import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import { currentSession } from "@/lib/auth/current";
import { logOutAction } from "./(account)/actions";
import "./globals.css";

export const metadata: Metadata = {
  title: "Sitewright",
  description: "Edit your WordPress site by chatting with an assistant.",
  icons: {
    icon: [
      { url: "/favicon.ico", sizes: "32x32" },
      { url: "/icon.svg", type: "image/svg+xml" },
    ],
    apple: "/apple-touch-icon.png",
  },
  manifest: "/manifest.webmanifest",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1, themeColor: "#2271b1" };

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
                <Link
                  href="/account"
                  className="account-link"
                  data-testid="signed-in-as"
                  title={`Your account: ${session.user.email}`}
                >
                  {session.user.email}
                </Link>
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
