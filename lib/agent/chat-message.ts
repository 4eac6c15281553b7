/**
 * The one chat message type shared by the server (the agent's stream, stored conversations) and the chat page
 * (`useChat<ChatMessage>`), after ai-chatbot's `lib/types.ts`: metadata, data parts and tools are all typed, the
 * tools inferred from the operations themselves. Type-only imports: this module adds nothing to a page's bundle.
 */
import type { InferUITool, Tool, UIMessage } from "ai";
import type { z } from "zod";
import type changeMenu from "./operations/change_menu";
import type createDraft from "./operations/create_draft";
import type getSiteInfo from "./operations/get_site_info";
import type insertBlock from "./operations/insert_block";
import type listMedia from "./operations/list_media";
import type listPages from "./operations/list_pages";
import type listPosts from "./operations/list_posts";
import type publishPage from "./operations/publish_page";
import type readMenus from "./operations/read_menus";
import type readPage from "./operations/read_page";
import type readSiteSettings from "./operations/read_site_settings";
import type replaceBlock from "./operations/replace_block";
import type setFeaturedImage from "./operations/set_featured_image";
import type setSiteIdentity from "./operations/set_site_identity";
import type trashPage from "./operations/trash_page";
import type updateCustomCss from "./operations/update_custom_css";
import type updatePage from "./operations/update_page";
import type { TurnMetadata } from "./run";
import type { ToolOutput } from "./tools";
import type { ChangePart } from "./writes";

type AnyOperation =
  | typeof changeMenu
  | typeof createDraft
  | typeof getSiteInfo
  | typeof insertBlock
  | typeof listMedia
  | typeof listPages
  | typeof listPosts
  | typeof publishPage
  | typeof readMenus
  | typeof readPage
  | typeof readSiteSettings
  | typeof replaceBlock
  | typeof setFeaturedImage
  | typeof setSiteIdentity
  | typeof trashPage
  | typeof updateCustomCss
  | typeof updatePage;

/** Every operation as the UI sees it: its name, the input the model gave, and what the tool answered. */
export type ChatTools = {
  [Op in AnyOperation as Op["name"]]: InferUITool<Tool<z.input<Op["input"]>, ToolOutput>>;
};

export type OperationName = keyof ChatTools;

/** Per message: how an agent turn ended (server), or that the reply is the page's offline placeholder (client). */
export type ChatMetadata = Partial<TurnMetadata> & { offline?: boolean };

export type ChatDataParts = {
  /** First chunk of a turn: the conversation it belongs to (new conversations get their id here). */
  conversation: { conversationId: string };
  /** The page's placeholder reply when the assistant cannot be reached. */
  offline: { reason: string };
  /** A write's change items, planned (waiting for the owner's click) or written; id = the tool call. */
  change: ChangePart;
};

export type ChatMessage = UIMessage<ChatMetadata | undefined, ChatDataParts, ChatTools>;
export type ChatPart = ChatMessage["parts"][number];
