/**
 * Teams in Chromium against the production build (docs/teams.md), two people in two browsers: the owner turns on
 * "changes need a second person" and invites an editor by e-mail; the editor signs up through the mailed link, asks
 * in the chat for a visible change, sees it wait and cannot approve it (no Approve anywhere, and the route refuses);
 * the owner approves it on its review page; both see who asked and who approved on the card and in the history;
 * the owner's audit export from the team page verifies with `npm run audit:verify`, and one edited line does not.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { linkIn, readMailDir } from "../test/smtp-sink";
import { connectSite, frontEnd, PASSWORD, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";
import { scaled } from "./support/waits";

useAppDatabase();

const OWNER = "Olga Owner";
const EDITOR = "Ana Editor";
const unique = () => `${Date.now()}${Math.floor(Math.random() * 1e6)}`;

async function personIn(browser: Browser) {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return { context, page, errors };
}

/** Fills the sign-up form the page shows (the plain one, or the one an invitation leads to). */
async function fillSignUp(page: Page, name: string, email: string) {
  await page.getByLabel("Name (optional)").fill(name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
}

/** The invitation mail to `to`, once the SMTP sink has written it. */
async function invitationLink(to: string) {
  const find = () => readMailDir(e2eState().mailDir).find((m) => m.to.includes(to) && m.subject.includes("invited"));
  await expect.poll(() => find()?.subject, { message: `an invitation to ${to}`, timeout: scaled(30_000) }).toBeTruthy();
  return linkIn(find()!, "/invitations").url;
}

/** Runs `npm run audit:verify <file>`: its exit status and what it said. */
function auditVerify(file: string) {
  try {
    const out = execFileSync("npm", ["run", "--silent", "audit:verify", "--", file], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { status: 0, out };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { status: failed.status, out: `${failed.stdout}${failed.stderr}` };
  }
}

test("an editor's change waits for the owner, both see who asked and who approved, and the audit export verifies", async ({
  browser,
}) => {
  test.setTimeout(test.info().timeout * 3);
  const { appUrl } = e2eState();
  const owner = await personIn(browser);
  const editor = await personIn(browser);
  const editorEmail = `editor${unique()}@example.com`;

  // The owner signs up; their site is connected as pairing leaves it (pairing itself: pairing.spec.ts).
  await owner.page.goto(`${appUrl}/signup`);
  await fillSignUp(owner.page, OWNER, `owner${unique()}@example.com`);
  await expect(owner.page.getByTestId("signed-in-as")).toBeVisible({ timeout: scaled(60_000) });
  const ownerId = (await (await owner.page.request.get(`${appUrl}/auth/me`)).json()).user.id as string;
  const { siteId, admin } = await connectSite(ownerId);
  const { data: created } = await admin.post<{ id: number; link: string }>("/wp/v2/pages", {
    title: "Opening hours",
    content: "<!-- wp:paragraph --><p>Open 8 to 18</p><!-- /wp:paragraph -->",
    status: "publish",
  });

  // On the team page: a second person for every change, and an editor invited by e-mail.
  await owner.page.goto(`${appUrl}/sites/${siteId}/team`);
  await owner.page.getByRole("checkbox", { name: /Whoever asked for a change cannot approve/ }).check();
  await owner.page.getByRole("button", { name: "Save setting" }).click();
  await expect(owner.page.getByText("Setting saved.")).toBeVisible();
  await owner.page.getByLabel("E-mail").fill(editorEmail);
  await owner.page.locator('select[name="role"]').selectOption("editor");
  await owner.page.getByRole("button", { name: "Send invitation" }).click();
  await expect(owner.page.getByText("Invitation sent.")).toBeVisible();
  await expect(owner.page.getByTestId("invitations")).toContainText(`${editorEmail} as editor`);

  // The editor follows the mailed link, signs up with that address, accepts, and lands in the site's chat.
  await editor.page.goto(await invitationLink(editorEmail));
  await expect(editor.page.getByRole("heading", { name: /^Join / })).toBeVisible();
  await editor.page.getByRole("link", { name: "Create an account" }).click();
  await fillSignUp(editor.page, EDITOR, editorEmail);
  await editor.page.getByRole("button", { name: "Accept invitation" }).click({ timeout: scaled(60_000) });
  await expect(editor.page).toHaveURL(`${appUrl}/sites/${siteId}/chat`);

  // The editor asks for a visible change: it waits, and the card offers no Approve, only who approves.
  // A title no other spec gives a page: the theme's page list shows every page's title on every page of the shared
  // site, so another spec's "Summer opening hours" would read as this change written too early.
  await editor.page.getByLabel("Message").fill(`Rename page ${created.id} to "Hours agreed by the team"`);
  await editor.page.getByRole("button", { name: "Send" }).click();
  const card = editor.page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await expect(card.getByTestId("waits-for-approver")).toContainText("the site's owner or an approver approves");
  await expect(card.locator("ins")).toHaveText("Hours agreed by the team");
  await expect(card.getByRole("button", { name: /^Approve/ })).toHaveCount(0);
  // The message box and the status line say who acts on it, not "approve or deny above".
  await expect(editor.page.getByLabel("Message")).toHaveAttribute("placeholder", /waits for an approver/);
  await expect(editor.page.getByTestId("chat-status")).toHaveText(
    "Your change waits for an approver on its review page.",
  );
  await editor.page.screenshot({ path: ".cache/screens/teams-editor-waits.png", fullPage: true });
  const reviewHref = (await card.getByRole("link", { name: "Its review page" }).getAttribute("href"))!;
  const changeSetId = reviewHref.split("/").at(-1)!;

  // Asking the route directly is refused too, in words that say who can; the live page is unchanged.
  const refused = await editor.page.request.post(`${appUrl}/sites/${siteId}/changes/${changeSetId}/approve`, {
    data: {},
    headers: { origin: appUrl },
  });
  expect(refused.status()).toBe(403);
  const refusal = (await refused.json()).error;
  expect(refusal.code).toBe("forbidden");
  expect(refusal.message).toContain("the site's owner or an approver");
  expect(await frontEnd(created.link)).not.toContain("Hours agreed by the team");

  // Its review page shows it waiting, without Approve, for the editor.
  await editor.page.goto(`${appUrl}${reviewHref}`);
  await expect(editor.page.getByTestId("review-status")).toHaveText("Waiting for approval");
  await expect(editor.page.getByTestId("not-yours-to-approve")).toBeVisible();
  await expect(editor.page.getByRole("button", { name: "Approve" })).toHaveCount(0);

  // The owner finds it in the history, named as the editor's, and approves it on its review page.
  await owner.page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const waiting = owner.page.getByTestId("change-set").first();
  await expect(waiting).toHaveAttribute("data-status", "pending");
  await expect(waiting.getByTestId("who-did-what")).toHaveText(`Asked by ${EDITOR} in the chat.`);
  await waiting.getByRole("link", { name: "Review it: approve or deny" }).click();
  await expect(owner.page).toHaveURL(`${appUrl}${reviewHref}`);
  await owner.page.getByRole("button", { name: "Approve" }).click();
  await expect(owner.page.getByTestId("review-status")).toContainText("Applied");
  await expect.poll(async () => frontEnd(created.link)).toContain("Hours agreed by the team");

  // Both see who asked and who approved: on the review page's card and in the history.
  for (const person of [owner, editor]) {
    await person.page.goto(`${appUrl}${reviewHref}`);
    await expect(person.page.getByTestId("who-did-what")).toContainText(`Asked by ${EDITOR} in the chat.`);
    await expect(person.page.getByTestId("who-did-what")).toContainText(`Approved by ${OWNER}.`);
    await person.page.goto(`${appUrl}/sites/${siteId}/changes/history`);
    const set = person.page.locator(`[data-testid="change-set"][id="${changeSetId}"]`);
    await expect(set).toHaveAttribute("data-status", "applied");
    await expect(set.getByTestId("who-did-what")).toContainText(`Asked by ${EDITOR} in the chat.`);
    await expect(set.getByTestId("who-did-what")).toContainText(`Approved by ${OWNER}.`);
  }
  await owner.page.screenshot({ path: ".cache/screens/teams-history.png", fullPage: true });

  // The owner exports the audit log from the team page; it verifies offline and names both people's acts.
  await owner.page.goto(`${appUrl}/sites/${siteId}/team`);
  const download = owner.page.waitForEvent("download");
  await owner.page.getByRole("link", { name: "Export audit log" }).click();
  const folder = path.resolve(".cache/test-results/teams");
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `audit-${siteId}.jsonl`);
  await (await download).saveAs(file);
  const verified = auditVerify(file);
  expect(verified, verified.out).toMatchObject({ status: 0 });
  expect(verified.out).toMatch(/^ok: entries \d+–\d+/m);
  const lines = readFileSync(file, "utf8").trimEnd().split("\n");
  const entries = lines.map((line) => JSON.parse(line) as { action: string; actor: { name: string } | null });
  const acts = entries.map((entry) => `${entry.action}:${entry.actor?.name ?? "service"}`);
  expect(acts).toEqual(
    expect.arrayContaining([
      `setting:${OWNER}`,
      `member_invite:${OWNER}`,
      `member_join:${EDITOR}`,
      `turn:${EDITOR}`,
      `approve:${OWNER}`,
      `export:${OWNER}`,
    ]),
  );
  expect(acts.at(-1)).toBe("checkpoint:service");

  // One line edited (the editor's request, made to look like the owner's) is caught at that line.
  const turn = entries.findIndex((entry) => entry.action === "turn");
  const forged = lines.map((line, i) => (i === turn ? line.replace(EDITOR, OWNER) : line));
  const forgedFile = path.join(folder, `audit-${siteId}-forged.jsonl`);
  writeFileSync(forgedFile, `${forged.join("\n")}\n`);
  const caught = auditVerify(forgedFile);
  expect(caught.status, caught.out).toBe(1);
  expect(caught.out).toContain(`line ${turn + 1}:`);

  expect([...owner.errors, ...editor.errors]).toEqual([]);
  await owner.context.close();
  await editor.context.close();
});
