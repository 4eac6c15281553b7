import { z } from "zod";
import { outline, parseBlocks } from "../blocks";
import { defineOperation } from "./operation";
import { clip, contentType, fetchEditable, postId, targetOf } from "./wordpress";

const CONTENT_LIMIT = 30_000;

export default defineOperation({
  name: "read_page",
  label: "Read a page",
  description:
    'Read one page or post: title, status, excerpt, featured image, its raw content and the outline of its blocks. Each outline entry has a `position` ("3" is the third top-level block, "3.1" the first block inside it) that replace_block and insert_block take. Read a page before changing it.',
  input: z.object({ type: contentType, id: postId }),
  scope: "content:read",
  risk: "read",
  async run(client, { type, id }) {
    const post = await fetchEditable(client, type, id);
    const raw = post.content.raw ?? "";
    return {
      summary: `Read ${type} ${id} ("${clip(post.title.raw, 80)}").`,
      target: targetOf(type, post),
      data: {
        id: post.id,
        type,
        title: post.title.raw,
        status: post.status,
        link: post.link,
        modified: post.modified,
        excerpt: post.excerpt?.raw ?? "",
        featuredMedia: post.featured_media ?? 0,
        outline: outline(raw, parseBlocks(raw)),
        content: clip(raw, CONTENT_LIMIT),
        contentLength: raw.length,
      },
    };
  },
});
