/**
 * After a real login, `next=` may only lead to a page of ours: every spelling a browser reads as another origin
 * lands on the default page. Requests to any other origin are answered inside the browser (nothing leaves the
 * machine) and recorded, so an escape fails the test instead of reaching the network.
 */
import { expect, test } from "@playwright/test";
import { e2eState } from "./support/state";
import { allowTest } from "./support/waits";

const password = "a long and unusual passphrase 7";

test.describe("the redirect after login", () => {
  test("goes only to our own origin, whatever the spelling of next=", async ({ page }) => {
    allowTest(180_000);
    const { appUrl } = e2eState();
    const app = new URL(appUrl);
    const email = `redirect${Date.now()}${Math.floor(Math.random() * 1e6)}@example.com`;
    expect((await page.request.post(`${appUrl}/auth/signup`, { data: { email, password } })).status()).toBe(201);

    const escaped: string[] = [];
    await page.context().route(
      (url) => url.origin !== app.origin,
      (route) => {
        escaped.push(route.request().url());
        return route.fulfill({ status: 200, contentType: "text/html", body: "<h1>escaped</h1>" });
      },
    );
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });

    const logInWith = async (next: string) => {
      await page.context().clearCookies();
      await page.goto(`${appUrl}/login?next=${encodeURIComponent(next)}`);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Log in" }).click();
    };

    // The control: a path of ours is honoured.
    await logInWith("/connect");
    await page.waitForURL(`${appUrl}/connect`);

    const spellings = [
      "//evil.test",
      "/\\evil.test",
      "\\/evil.test",
      "/%5Cevil.test",
      "%2F%2Fevil.test",
      "/\t/evil.test",
      "/\n/evil.test",
      "https:evil.test",
      "http:evil.test",
      "javascript:alert(document.domain)",
      `http://localhost:${app.port}@evil.test`,
      `${app.protocol}//${app.host}@evil.test/`,
      "/.//evil.test",
    ];
    for (const next of spellings) {
      await logInWith(next);
      await expect(page.getByTestId("signed-in-as"), `after next=${JSON.stringify(next)}`).toHaveText(email);
      await page.waitForLoadState("load");
      expect(new URL(page.url()).origin, `after next=${JSON.stringify(next)}`).toBe(app.origin);
      expect(escaped, `after next=${JSON.stringify(next)}`).toEqual([]);
      expect(dialogs, `after next=${JSON.stringify(next)}`).toEqual([]);
    }
  });
});
