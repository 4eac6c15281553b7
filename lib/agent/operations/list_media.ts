import { z } from "zod";
import { defineOperation } from "./operation";

type Media = {
  id: number;
  title?: { rendered?: string };
  source_url: string;
  mime_type: string;
  alt_text?: string;
  media_type?: string;
};

export default defineOperation({
  name: "list_media",
  label: "Look through the media library",
  description: "List or search the media library: id, title, URL, type, alt text.",
  input: z.object({
    search: z.string().max(200).optional(),
    mediaType: z.enum(["image", "video", "audio", "application"]).optional(),
    page: z.number().int().min(1).max(1000).default(1),
    perPage: z.number().int().min(1).max(50).default(20),
  }),
  scope: "content:read",
  risk: "read",
  async run(client, input) {
    const query: Record<string, string | number> = {
      page: input.page,
      per_page: input.perPage,
      _fields: "id,title,source_url,mime_type,alt_text,media_type",
    };
    if (input.search) query.search = input.search;
    if (input.mediaType) query.media_type = input.mediaType;
    const response = await client.get<Media[]>("/wp/v2/media", query);
    const items = (Array.isArray(response.data) ? response.data : []).map((m) => ({
      id: m.id,
      title: m.title?.rendered ?? "",
      url: m.source_url,
      mimeType: m.mime_type,
      alt: m.alt_text ?? "",
    }));
    return { summary: `Listed ${items.length} media items.`, target: { type: "media" }, data: { items } };
  },
});
