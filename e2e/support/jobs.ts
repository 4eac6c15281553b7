/**
 * A bulk job as the owner starts it: asked for in the chat (the scripted model calls start_bulk_job with the spec as
 * typed), then its queue opened from the chat's card once planning is done.
 */
import { expect, type Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { getDb } from "../../lib/db";
import { type Job, jobs } from "../../lib/db/schema";
import { e2eState } from "./state";
import { scaled } from "./waits";

/** Replaces the shop's old number in the published pages `search` finds; the job, its queue open and ready. */
export async function replaceJobInQueue(page: Page, siteId: string, search: string): Promise<Job> {
  const spec = {
    description: "pages with the old number",
    selection: { type: "page", search, status: "publish" },
    change: { kind: "replace", field: "content", find: "555-0100", replace: "555-0199" },
  };
  await page.goto(`${e2eState().appUrl}/sites/${siteId}/chat?new=1`);
  await page.getByLabel("Message").fill(`call start_bulk_job ${JSON.stringify(spec)}`);
  await page.getByRole("button", { name: "Send" }).click();
  await page.getByRole("link", { name: "Follow the job and review its changes" }).click();
  await expect(page.getByTestId("job")).toHaveAttribute("data-status", "ready", { timeout: scaled(60_000) });
  const jobId = new URL(page.url()).pathname.split("/")[4]!;
  const [job] = await (await getDb()).select().from(jobs).where(eq(jobs.id, jobId));
  return job!;
}
