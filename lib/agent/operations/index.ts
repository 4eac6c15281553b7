/** Every operation the agent knows. Which ones a run may use is decided by the registry (lib/agent/registry.ts). */
import type { z } from "zod";
import { leanToolSchema } from "../tool-definitions";
import type { Operation } from "./operation";
import addImage from "./add_image";
import changeMenu from "./change_menu";
import changeNavigation from "./change_navigation";
import createDraft from "./create_draft";
import editBuilderPage from "./edit_builder_page";
import getSiteInfo from "./get_site_info";
import insertBlock from "./insert_block";
import listMedia from "./list_media";
import listTerms from "./list_terms";
import listPages from "./list_pages";
import listPosts from "./list_posts";
import publishPage from "./publish_page";
import readGlobalStyles from "./read_global_styles";
import readMenus from "./read_menus";
import readNavigation from "./read_navigation";
import readPage from "./read_page";
import readSiteSettings from "./read_site_settings";
import readTemplatePart from "./read_template_part";
import replaceBlock from "./replace_block";
import saveTerm from "./save_term";
import schedulePost from "./schedule_post";
import setFeaturedImage from "./set_featured_image";
import setPostTerms from "./set_post_terms";
import setSiteIdentity from "./set_site_identity";
import startBulkJob from "./start_bulk_job";
import trashPage from "./trash_page";
import updateCustomCss from "./update_custom_css";
import updateGlobalStyles from "./update_global_styles";
import updateMedia from "./update_media";
import updatePage from "./update_page";
import updateSeo from "./update_seo";
import updateTemplatePart from "./update_template_part";
import viewImage from "./view_image";

/** Every operation with its own type (the chat's message types are derived from it: lib/agent/chat-message.ts). */
export const OPERATIONS = [
  getSiteInfo,
  listPages,
  listPosts,
  readPage,
  listMedia,
  viewImage,
  listTerms,
  readMenus,
  readNavigation,
  readGlobalStyles,
  readTemplatePart,
  readSiteSettings,
  createDraft,
  updatePage,
  replaceBlock,
  editBuilderPage,
  insertBlock,
  addImage,
  setSiteIdentity,
  setFeaturedImage,
  updateMedia,
  saveTerm,
  setPostTerms,
  updateSeo,
  schedulePost,
  startBulkJob,
  updateCustomCss,
  updateGlobalStyles,
  updateTemplatePart,
  changeNavigation,
  publishPage,
  trashPage,
  changeMenu,
] as const;

export const ALL_OPERATIONS: readonly Operation[] = OPERATIONS as unknown as readonly Operation[];

/**
 * Each operation's input schema as the AI SDK takes it (lean: lib/agent/tool-definitions.ts), built once: the JSON
 * schema sent to the model is then computed once per process instead of on every model call.
 */
const sdkSchemas = new Map(ALL_OPERATIONS.map((op) => [op, leanToolSchema(op.input as z.ZodType)]));
export const sdkInputSchema = (op: Operation) => sdkSchemas.get(op) ?? leanToolSchema(op.input as z.ZodType);

export const operationsByName: ReadonlyMap<string, Operation> = new Map(ALL_OPERATIONS.map((op) => [op.name, op]));

export type {
  MediaSource,
  Operation,
  OperationResult,
  PlacedMedia,
  PlanContext,
  Risk,
  Scope,
  WritePlan,
} from "./operation";
export { OperationError } from "./operation";
