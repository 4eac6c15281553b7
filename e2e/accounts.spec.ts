import { expect, test } from "@playwright/test";
import { e2eState } from "./support/state";

const password = "a long and unusual passphrase 7";
const uniqueEmail = () => `e2e${Date.now()}${Math.floor(Math.random() * 1e6)}@example.com`;

test.describe("accounts in the browser", () => {
  test("signs up, sees the account, logs out and logs back in", async ({ page }) => {
    const { appUrl } = e2eState();
    const email = uniqueEmail();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));

    await page.goto(`${appUrl}/signup`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByTestId("signed-in-as")).toHaveText(email);
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === "__Host-sw_session");
    expect(session?.httpOnly).toBe(true);
    expect(session?.secure).toBe(true);
    expect(session?.sameSite).toBe("Lax");

    await page.getByRole("button", { name: "Log out" }).click();
    await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
    await page.getByLabel("Email").fill(email.toUpperCase());
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page.getByTestId("signed-in-as")).toHaveText(email);
    expect(errors).toEqual([]);
  });

  test("shows field errors for a bad email, a short password and a taken email", async ({ page }) => {
    const { appUrl } = e2eState();
    await page.goto(`${appUrl}/signup`);
    await page.getByLabel("Email").fill("not-an-email");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.locator('[data-field-error="email"]')).toHaveText("Enter a valid email address.");
    await expect(page.locator('[data-field-error="password"]')).toHaveText("Password must be at least 15 characters.");
    await expect(page.getByLabel("Email")).toHaveValue("not-an-email");

    const email = uniqueEmail();
    const api = await page.request.post(`${appUrl}/auth/signup`, { data: { email, password } });
    expect(api.status()).toBe(201);
    await page.context().clearCookies();
    await page.goto(`${appUrl}/signup`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.locator('[data-field-error="email"]')).toContainText("already exists");
  });

  test("says so when the password is wrong", async ({ page }) => {
    const { appUrl } = e2eState();
    await page.goto(`${appUrl}/login`);
    await page.getByLabel("Email").fill(uniqueEmail());
    await page.getByLabel("Password").fill("not the right passphrase");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page.locator("form [role=alert]")).toHaveText("The email or password is not right.");
  });

  test("refuses a cross-site sign-up", async ({ request }) => {
    const { appUrl } = e2eState();
    const res = await request.post(`${appUrl}/auth/signup`, {
      data: { email: uniqueEmail(), password },
      headers: { origin: "https://evil.example" },
    });
    expect(res.status()).toBe(403);
    expect((await res.json()).error.code).toBe("cross_site_request");
  });
});
