/**
 * "Forgot your password?" in Chromium against the production build, with the app's mail going over real SMTP to
 * the sink e2e/global-setup.ts started: sign up, log out, ask for a link, follow it from the mail, set a new
 * password, log in with it; the old one no longer works. And the sign-up's verification link, confirmed.
 */
import { expect, type Page, test } from "@playwright/test";
import { type CapturedMail, linkIn, readMailDir } from "../test/smtp-sink";
import { expectAccessible } from "./support/checks";
import { e2eState } from "./support/state";
import { scaled } from "./support/waits";

const password = "a long and unusual passphrase 7";
const newPassword = "a different and equally unusual passphrase";
const uniqueEmail = () => `reset${Date.now()}${Math.floor(Math.random() * 1e6)}@example.com`;

/** The first mail to `to` whose subject contains `subject`, once the sink has written it. */
async function mailTo(to: string, subject: string): Promise<CapturedMail> {
  const find = () => readMailDir(e2eState().mailDir).find((m) => m.to.includes(to) && m.subject.includes(subject));
  await expect
    .poll(() => find()?.subject, { message: `a "${subject}" mail to ${to}`, timeout: scaled(15_000) })
    .toBeTruthy();
  return find()!;
}

async function signUpAndLogOut(page: Page, email: string) {
  await page.goto(`${e2eState().appUrl}/signup`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText(email);
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
}

async function logIn(page: Page, email: string, secret: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(secret);
  await page.getByRole("button", { name: "Log in" }).click();
}

test("resets a forgotten password with the mailed link; the old password stops working", async ({ page }) => {
  const { appUrl } = e2eState();
  const email = uniqueEmail();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await signUpAndLogOut(page, email);

  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page.getByRole("heading", { name: "Forgot your password?" })).toBeVisible();
  await expectAccessible(page, "forgot-password");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send the link" }).click();
  await expect(page.getByRole("status")).toContainText("If an account exists for that address, we sent a link");

  const link = linkIn(await mailTo(email, "Reset your Sitewright password"), "/reset-password");
  expect(link.url.startsWith(`${appUrl}/reset-password?token=`)).toBe(true);
  await page.goto(link.url);
  await expect(page.getByRole("heading", { name: "Set a new password" })).toBeVisible();
  await expectAccessible(page, "reset-password");
  await page.getByLabel("New password").fill("too short");
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.locator('[data-field-error="password"]')).toHaveText("Password must be at least 15 characters.");
  await page.getByLabel("New password").fill(newPassword);
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.getByRole("status")).toContainText("Your password was changed");
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();

  await logIn(page, email, password);
  await expect(page.locator("form [role=alert]")).toHaveText("The email or password is not right.");
  await logIn(page, email, newPassword);
  await expect(page.getByTestId("signed-in-as")).toHaveText(email);
  await mailTo(email, "Your Sitewright password was changed");

  // The link worked once.
  await page.goto(link.url);
  await page.getByLabel("New password").fill(`${newPassword} again`);
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.locator("form [role=alert]")).toContainText("not valid, or it was already used");
  expect(errors).toEqual([]);
});

test("confirms the address with the link mailed at sign-up, and the account page says so", async ({ page }) => {
  const { appUrl } = e2eState();
  const email = uniqueEmail();
  await page.goto(`${appUrl}/signup`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText(email);

  await page.goto(`${appUrl}/account`);
  const card = page.getByTestId("email-verification");
  await expect(card).toContainText("not verified");
  await card.getByRole("button", { name: "Resend the link" }).click();
  await expect(card.getByRole("status")).toContainText(`We sent a new link to ${email}`);

  // The resent link replaced the sign-up's: take the newest.
  await expect.poll(() => readMailDir(e2eState().mailDir).filter((m) => m.to.includes(email)).length).toBe(2);
  const newest = readMailDir(e2eState().mailDir)
    .filter((m) => m.to.includes(email))
    .at(-1)!;
  await page.goto(linkIn(newest, "/verify-email").url);
  await expect(page.getByRole("heading", { name: "Confirm your email address" })).toBeVisible();
  await expectAccessible(page, "verify-email");
  await page.getByRole("button", { name: "Confirm my email address" }).click();
  await expect(page.getByRole("status")).toHaveText("Your email address is verified.");
  await page.getByRole("link", { name: "Back to your account" }).click();
  await expect(page.getByTestId("email-verification")).toContainText(`${email}: verified`);
  await expectAccessible(page, "account-verified");
});
