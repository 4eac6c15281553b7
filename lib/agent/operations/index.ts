/** Every operation the agent knows. Which ones a run may use is decided by the registry (lib/agent/registry.ts). */
import { zodSchema } from "ai";
import type { z } from "zod";
import type { Operation } from "./operation";
import changeMenu from "./change_menu";
import createDraft from "./create_draft";
import getSiteInfo from "./get_site_info";
import insertBlock from "./insert_block";
import listMedia from "./list_media";
import listPages from "./list_pages";
import listPosts from "./list_posts";
import publishPage from "./publish_page";
import readMenus from "./read_menus";
import readPage from "./read_page";
import readSiteSettings from "./read_site_settings";
import replaceBlock from "./replace_block";
import setFeaturedImage from "./set_featured_image";
import setSiteIdentity from "./set_site_identity";
import trashPage from "./trash_page";
import updateCustomCss from "./update_custom_css";
import updatePage from "./update_page";

export const ALL_OPERATIONS: readonly Operation[] = [
  getSiteInfo,
  listPages,
  listPosts,
  readPage,
  listMedia,
  readMenus,
  readSiteSettings,
  createDraft,
  updatePage,
  replaceBlock,
  insertBlock,
  setSiteIdentity,
  setFeaturedImage,
  updateCustomCss,
  publishPage,
  trashPage,
  changeMenu,
] as Operation[];

/**
 * Each operation's input schema as the AI SDK takes it, built once: the JSON schema sent to the model is then
 * computed once per process instead of on every model call.
 */
const sdkSchemas = new Map(ALL_OPERATIONS.map((op) => [op, zodSchema(op.input as z.ZodType<unknown> & z.core.$ZodType)]));
export const sdkInputSchema = (op: Operation) => sdkSchemas.get(op) ?? zodSchema(op.input as z.ZodType<unknown> & z.core.$ZodType);

export const operationsByName: ReadonlyMap<string, Operation> = new Map(ALL_OPERATIONS.map((op) => [op.name, op]));

export type { Operation, OperationResult, Risk, Scope } from "./operation";
export { OperationError } from "./operation";
