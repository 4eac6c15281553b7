/**
 * Putting the owner's files on the site during a plan (docs/media.md): an upload (or an image fetched from an https
 * address) becomes an attachment at once, since nothing uses it yet and visitors do not see it, and lands in the
 * turn's change set as a creation (undo deletes it while nothing else uses it). What uses it (an image block on a
 * published page, a featured image) is the plan, which waits for the owner's click when visitors would see it.
 */
import { z } from "zod";
import { publicChangeItem, recordWritten, type TurnScope } from "@/lib/changes/change-sets";
import type { PlannedItem } from "@/lib/changes/plan";
import { writtenItemSchema } from "@/lib/sites/items";
import type { ChangeItem } from "@/lib/db/schema";
import { isAppError } from "@/lib/errors";
import { findOwnedUpload, noteUploadUsed, uploadFromUrl } from "@/lib/media/uploads";
import { isSiteRequestError } from "@/lib/sites/client";
import type { SiteClient } from "@/lib/sites/types";
import { type MediaSource, OperationError, type PlacedMedia, type PlanContext } from "./operations";

export const MEDIA_ROUTE = "/sitewright/v1/media";

const placedSchema = writtenItemSchema.extend({
  media: z.object({
    id: z.number().int().positive(),
    url: z.string(),
    mime: z.string(),
    width: z.number().int().nullable().optional(),
    height: z.number().int().nullable().optional(),
    alt: z.string(),
  }),
});

type Placing = { scope: TurnScope; client: SiteClient };

/** Per write context: what each tool call has placed (shown on its card), and the uploads made (made once). */
const placedByContext = new WeakMap<Placing, Map<string, ChangeItem[]>>();
const madeByContext = new WeakMap<Placing, Map<string, Promise<PlacedMedia>>>();

/** The change items of attachments this tool call placed on the site in this request, for its card. */
export function placedItems(ctx: Placing, toolCallId: string): ReturnType<typeof publicChangeItem>[] {
  return (placedByContext.get(ctx)?.get(toolCallId) ?? []).map(publicChangeItem);
}

function asOperationError(error: unknown): never {
  if (isAppError(error)) throw new OperationError(error.message, error.code, { cause: error });
  throw error;
}

/** The site's own refusals of a file, in words the model can pass on. */
function refusedUpload(error: unknown): never {
  if (isSiteRequestError(error) && error.siteCode === "sitewright_too_large") {
    const max = (error.siteData as { maxBytes?: unknown } | undefined)?.maxBytes;
    throw new OperationError(
      `The site accepts files up to ${typeof max === "number" ? `${Math.floor(max / 1024)} KiB` : "a smaller size"}; this one is larger. Ask the owner for a smaller file.`,
      "file_too_large",
      { cause: error },
    );
  }
  if (isSiteRequestError(error) && error.siteCode === "sitewright_media_type") {
    throw new OperationError("The site refused this type of file.", "unsupported_media_type", { cause: error });
  }
  throw error;
}

/**
 * The site's own limit (`mediaMaxBytes` in `/info`), checked before the file is sent: over PHP's post_max_size the
 * body never reaches the plugin and the request would fail its signature check, which says nothing useful.
 */
async function assertSiteTakes(client: SiteClient, size: number): Promise<void> {
  const { data } = await client.get<{ mediaMaxBytes?: unknown }>("/sitewright/v1/info");
  const max = data?.mediaMaxBytes;
  if (typeof max === "number" && size > max) {
    throw new OperationError(
      `This site accepts files up to ${Math.floor(max / 1024)} KiB (its PHP upload settings); this one is ${Math.ceil(size / 1024)} KiB. Ask the owner for a smaller file, or to raise post_max_size on the site.`,
      "file_too_large",
    );
  }
}

async function loadUpload(ctx: Placing, source: MediaSource) {
  const { userId, siteId } = ctx.scope;
  const id =
    "uploadId" in source
      ? source.uploadId
      : (await uploadFromUrl({ userId, siteId, url: source.url }).catch(asOperationError)).id;
  const upload = await findOwnedUpload({ id, userId, siteId });
  if (!upload) {
    throw new OperationError(
      `There is no attachment upload:${id} for this site (attachments expire after a day). Ask the owner to attach the file again.`,
      "upload_not_found",
    );
  }
  return upload;
}

async function place(
  ctx: Placing,
  toolCallId: string,
  source: MediaSource,
  details: { alt?: string; caption?: string; title?: string },
): Promise<PlacedMedia> {
  if (ctx.scope.target === "sandbox") {
    throw new OperationError(
      "Files can be added on the live site only, not in a sandbox rehearsal. Tell the owner to switch the chat to live mode; nothing visible changes without their approval there either.",
      "not_in_sandbox",
    );
  }
  const upload = await loadUpload(ctx, source);
  await assertSiteTakes(ctx.client, upload.bytes.length);
  const title = details.title?.trim() || upload.name.replace(/\.[^.]+$/, "");
  const { data } = await ctx.client
    .post<unknown>(MEDIA_ROUTE, {
      filename: upload.name,
      data: upload.bytes.toString("base64"),
      title,
      alt: details.alt ?? "",
      caption: details.caption ?? "",
    })
    .catch(refusedUpload);
  const written = placedSchema.parse(data);
  const size = upload.width && upload.height ? `${upload.width}×${upload.height}` : undefined;
  const planned: PlannedItem = {
    kind: "media",
    ref: written.ref,
    action: "create",
    title,
    summary: `Uploaded ${upload.name} to the media library (not shown anywhere yet).`,
    before: null,
    after: {
      file: upload.name,
      type: upload.mime,
      ...(size ? { size } : {}),
      ...(details.alt ? { alt: details.alt } : {}),
      preview: `/sites/${ctx.scope.siteId}/uploads/${upload.id}`,
    },
    visible: false,
    change: { ref: "post:new", expect: null, action: "create", fields: { type: "attachment" } },
    beforeState: null,
    versionRead: null,
  };
  const { items } = await recordWritten(ctx.scope, toolCallId, [planned], [written]);
  const placed = placedByContext.get(ctx) ?? new Map<string, ChangeItem[]>();
  placedByContext.set(ctx, placed);
  placed.set(toolCallId, [...(placed.get(toolCallId) ?? []), ...items]);
  await noteUploadUsed(upload.id);
  return {
    id: written.media.id,
    url: written.media.url,
    mime: written.media.mime,
    name: upload.name,
    alt: written.media.alt,
    ...(written.media.width ? { width: written.media.width } : {}),
    ...(written.media.height ? { height: written.media.height } : {}),
  };
}

/** The context a plan gets in a chat turn: files are placed once per tool call and source, however often it plans. */
export function planContext(ctx: Placing, toolCallId: string): PlanContext {
  return {
    placeMedia(source, details) {
      const made = madeByContext.get(ctx) ?? new Map<string, Promise<PlacedMedia>>();
      madeByContext.set(ctx, made);
      const key = `${toolCallId}\n${JSON.stringify(source)}`;
      let placing = made.get(key);
      if (!placing) {
        placing = place(ctx, toolCallId, source, details);
        made.set(key, placing);
        placing.catch(() => made.delete(key));
      }
      return placing;
    },
  };
}
