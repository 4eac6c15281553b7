import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { gmtToSiteLocal, siteLocalToGmt } from "@/lib/wordpress/site-time";
import { defineOperation, OperationError } from "./operation";
import { contentType, postId, postText, readPostItem } from "./wordpress";

export default defineOperation({
  name: "schedule_post",
  label: "Schedule",
  description: "Schedule a draft page or post to publish at a time in the site's time zone, or move a scheduled one.",
  input: z.object({
    type: contentType,
    id: postId,
    at: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}$/)
      .describe("YYYY-MM-DD HH:MM"),
  }),
  scope: "content:write",
  risk: "write",
  async plan(client, { type, id, at }) {
    const info = (await client.get<{ timezone?: string }>("/sitewright/v1/info")).data;
    const zone = typeof info?.timezone === "string" && info.timezone ? info.timezone : "UTC";
    const gmt = siteLocalToGmt(at, zone);
    if (!gmt)
      throw new OperationError(`${at} is not a time that exists in the site's time zone (${zone}).`, "invalid_date");
    if (Date.parse(`${gmt.replace(" ", "T")}Z`) <= Date.now())
      throw new OperationError(`${at} (${zone}) is in the past; publish_page publishes now.`, "in_the_past");
    const current = await readPostItem(client, type, id);
    const status = postText(current, "status");
    if (status === "publish") throw new OperationError(`${type} ${id} is already published.`, "already_published");
    if (status === "trash") throw new OperationError(`${type} ${id} is in the trash.`, "in_trash");
    const when = `${gmtToSiteLocal(gmt, zone)} (${zone})`;
    const summary = `Scheduled ${type} ${id} ("${current.title}") for ${when}.`;
    const item = planPostUpdate(current, { status: "future", date: gmt }, summary);
    // The card shows what becomes visible then, and when in the owner's time; what is written is status and date.
    item.after = {
      status: "future",
      date: `${gmt} GMT = ${when}`,
      title: current.title,
      content: postText(current, "content"),
      ...(postText(current, "excerpt") ? { excerpt: postText(current, "excerpt") } : {}),
    };
    return { summary, target: { type, id, title: current.title }, items: [item], data: () => ({ id, at: when }) };
  },
});
