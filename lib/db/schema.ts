/**
 * Every table of the service. Each domain has its own section; `type X = typeof x.$inferSelect` sits beside
 * each table. After a change run `npx drizzle-kit generate` and commit the SQL under drizzle/.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

// ---------------------------------------------------------------- accounts

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    /** Lowercased email: the unique key, so `A@x.io` and `a@x.io` are one account. */
    emailNormalized: text("email_normalized").notNull(),
    name: text("name"),
    passwordHash: text("password_hash").notNull(),
    createdAt: ts("created_at").notNull(),
    /** When the person opened the link mailed to `email`; null until then and again after the email changes. */
    emailVerifiedAt: ts("email_verified_at"),
  },
  (t) => [uniqueIndex("users_email_normalized_key").on(t.emailNormalized)],
);
export type User = typeof users.$inferSelect;

export const ACCOUNT_TOKEN_PURPOSES = ["password_reset", "email_verification"] as const;
export type AccountTokenPurpose = (typeof ACCOUNT_TOKEN_PURPOSES)[number];

/**
 * Links mailed to a person (password reset, email verification): only the SHA-256 of the 32-byte token is kept.
 * One live token per user and purpose; using one deletes it (single use).
 */
export const accountTokens = pgTable(
  "account_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: ACCOUNT_TOKEN_PURPOSES }).notNull(),
    /** The (normalized) address the link was sent to: a verification link proves only that address. */
    email: text("email").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [
    index("account_tokens_user_purpose_idx").on(t.userId, t.purpose),
    index("account_tokens_expires_at_idx").on(t.expiresAt),
  ],
);
export type AccountToken = typeof accountTokens.$inferSelect;

export const sessions = pgTable(
  "sessions",
  {
    /** SHA-256 of the session id: a leaked table cannot be replayed as cookies. */
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull(),
    lastSeenAt: ts("last_seen_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("sessions_user_id_idx").on(t.userId), index("sessions_expires_at_idx").on(t.expiresAt)],
);
export type Session = typeof sessions.$inferSelect;

/** Fixed-window counters shared by every app instance (login, signup, redeem). */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text("key").notNull(),
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);
export type RateLimit = typeof rateLimits.$inferSelect;

// ---------------------------------------------------------------- sites and pairing

export const SITE_STATUSES = ["pending", "redeemed", "active", "expired", "locked", "revoked"] as const;
export type SiteStatus = (typeof SITE_STATUSES)[number];

/**
 * A site a user paired (or is pairing). A first pairing's row becomes the site; a user's later pairing of a URL they
 * already have a site for is a row of its own until redeemed, then hands its credentials to that site
 * (`repairsSiteId`), so history stays with one id. Pairings of one URL by different users coexist; a user's new
 * pairing of a URL supersedes only that user's pending one. Codes are stored only as an HMAC under a server key; credentials only encrypted.
 */
export const sites = pgTable(
  "sites",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Normalized: https, lowercased host, no default port, no trailing slash. */
    url: text("url").notNull(),
    status: text("status").$type<SiteStatus>().notNull(),
    codeHmac: text("code_hmac").notNull(),
    codeExpiresAt: ts("code_expires_at").notNull(),
    failedAttempts: integer("failed_attempts").notNull().default(0),
    restUrl: text("rest_url"),
    /** AES-256-GCM of `{token, secret}`, bound to the site id. Null once revoked. */
    credentials: text("credentials"),
    pluginVersion: text("plugin_version"),
    name: text("name"),
    pageBuilder: text("page_builder"),
    capabilities: jsonb("capabilities").$type<string[]>(),
    /** What the plugin reported at redeem and confirm (info + preflight), for the wizard and the agent. */
    siteInfo: jsonb("site_info").$type<Record<string, unknown>>(),
    preflight: jsonb("preflight").$type<Record<string, unknown>>(),
    createdAt: ts("created_at").notNull(),
    pairedAt: ts("paired_at"),
    confirmedAt: ts("confirmed_at"),
    lastSeenAt: ts("last_seen_at"),
    revokedAt: ts("revoked_at"),
    /**
     * The user's site this pairing re-pairs (same user, same URL, confirmed before): on redeem the new credentials
     * go to that site, which keeps its id and its history; this row is then spent (`revoked`, docs/api.md).
     */
    repairsSiteId: text("repairs_site_id"),
    /** "Changes need a second person": whoever asked for a change cannot approve, apply or undo it (docs/teams.md). */
    requireSecondPerson: boolean("require_second_person").notNull().default(false),
    /** Audit entries older than this many days are cut, only ever at a signed checkpoint; null keeps everything. */
    auditRetentionDays: integer("audit_retention_days"),
  },
  (t) => [
    index("sites_user_id_idx").on(t.userId),
    index("sites_url_created_idx").on(t.url, t.createdAt),
    // At most one pending pairing per user and URL; redeem finds it by URL and code among the pending ones.
    uniqueIndex("sites_one_pending_per_user_url").on(t.userId, t.url).where(sql`status = 'pending'`),
  ],
);
export type Site = typeof sites.$inferSelect;

// ---------------------------------------------------------------- sandboxes

/**
 * One row per sandbox container, from the moment it is asked for (before the container exists, so GC can tell
 * a crash's leftovers from containers being made). Pool members have no owner until a session takes them.
 */
export const sandboxes = pgTable(
  "sandboxes",
  {
    id: text("id").primaryKey(),
    /** `warming` → `pooled` → (taken) `ready`; a cold start goes `starting` → `ready`; `removing` on its way out. */
    status: text("status").$type<SandboxStatus>().notNull(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    /** The paired site a subset was copied from, if any. */
    siteId: text("site_id"),
    imageTag: text("image_tag").notNull(),
    /** The driver's handle for it (a container id, a pod name); the column keeps its first name. */
    containerId: text("container_id"),
    /** Where the service reaches its WordPress, `http://<host>:<port>` as the driver answered (never assumed). */
    endpoint: text("endpoint"),
    /** Where it runs (the engine's host, the Kubernetes node): the network check is per node. */
    node: text("node"),
    /** The driver that runs it (`docker`, `kubernetes`): only that driver can reach its handle. */
    driver: text("driver").$type<"docker" | "kubernetes">(),
    /** The plugin credentials made for this sandbox: `{token, secret, scopes}` sealed with ENCRYPTION_KEY. */
    credentials: text("credentials"),
    fromPool: boolean("from_pool").notNull().default(false),
    createdAt: ts("created_at").notNull(),
    acquiredAt: ts("acquired_at"),
    lastUsedAt: ts("last_used_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [
    index("sandboxes_status_idx").on(t.status, t.createdAt),
    index("sandboxes_user_id_idx").on(t.userId),
    index("sandboxes_expires_at_idx").on(t.expiresAt),
  ],
);
export type SandboxStatus = "warming" | "pooled" | "starting" | "ready" | "removing";
export type Sandbox = typeof sandboxes.$inferSelect;

/** What a sandbox holds: enough to show it and, later, to apply its changes back to the source site. */
export const sandboxManifests = pgTable("sandbox_manifests", {
  sandboxId: text("sandbox_id")
    .primaryKey()
    .references(() => sandboxes.id, { onDelete: "cascade" }),
  sourceSiteId: text("source_site_id"),
  sourceUrl: text("source_url"),
  /** The origin's uploads base URL: the media proxy fetches only below it. */
  sourceUploadsUrl: text("source_uploads_url"),
  imageTag: text("image_tag").notNull(),
  /** `[{kind, sourceId, sandboxId, checksum, ...}]`: each copied item, its id on both sides, a SHA-256 of its source. */
  items: jsonb("items").$type<SandboxManifestItem[]>().notNull(),
  createdAt: ts("created_at").notNull(),
  expiresAt: ts("expires_at").notNull(),
});
export type SandboxManifestItem = {
  kind: string;
  sourceId: string | number | null;
  sandboxId: string | number | null;
  checksum: string;
  title?: string;
  /**
   * The live item as the plugin's items route names it (`post:12`, `option:blogname`) and its version there when
   * it was copied (read before the export, so an edit racing the copy makes the version older, never newer):
   * applying a rehearsal writes only over this version (the drift rule).
   */
  liveRef?: string;
  liveVersion?: string | null;
};
export type SandboxManifest = typeof sandboxManifests.$inferSelect;

/** Named leases (sandbox GC, pool fill): taken atomically, so one app instance at a time does the work. */
export const sandboxLeases = pgTable("sandbox_leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  expiresAt: ts("expires_at").notNull(),
});
export type SandboxLease = typeof sandboxLeases.$inferSelect;

/**
 * What holds for the whole deployment rather than one process (every app instance on this database reads the
 * same): the sandbox image in use (`sandbox-image`).
 */
export const deploymentSettings = pgTable("deployment_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: ts("updated_at").notNull(),
});
export type DeploymentSetting = typeof deploymentSettings.$inferSelect;

/**
 * The sandbox network check's last result per node a deployment's sandboxes run on (lib/sandbox/containers.ts):
 * a node known isolated is not checked again until the result is old; `/health` reports the worst.
 */
export const sandboxNetworkChecks = pgTable(
  "sandbox_network_checks",
  {
    /** The deployment (lib/sandbox/config.ts `namespace`). */
    namespace: text("namespace").notNull(),
    driver: text("driver").$type<"docker" | "kubernetes">().notNull(),
    node: text("node").notNull(),
    isolated: boolean("isolated").notNull(),
    /** What the probe found, for the operator (the log says the same). */
    outcome: text("outcome").notNull(),
    checkedAt: ts("checked_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.driver, t.node] })],
);
export type SandboxNetworkCheck = typeof sandboxNetworkChecks.$inferSelect;

// ---------------------------------------------------------------- agent (chat)

/**
 * A chat about one site. `siteId` has no foreign key on purpose, here and in the audit: the record of what the
 * agent did on a site outlives the site's pairing.
 */
export const conversations = pgTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    siteId: text("site_id").notNull(),
    title: text("title").notNull(),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [index("conversations_user_site_idx").on(t.userId, t.siteId, t.updatedAt)],
);
export type Conversation = typeof conversations.$inferSelect;

/**
 * Sandbox mode: the sandbox a conversation rehearses in (docs/rehearsal.md). One per conversation; the link goes
 * with the sandbox (GC, delete), and the next sandbox-mode turn makes a fresh copy.
 */
export const conversationSandboxes = pgTable("conversation_sandboxes", {
  conversationId: text("conversation_id")
    .primaryKey()
    .references(() => conversations.id, { onDelete: "cascade" }),
  sandboxId: text("sandbox_id")
    .notNull()
    .references(() => sandboxes.id, { onDelete: "cascade" }),
  createdAt: ts("created_at").notNull(),
});
export type ConversationSandbox = typeof conversationSandboxes.$inferSelect;

/** One AI SDK UI message (`parts` as the SDK shapes them), saved when a turn finishes. */
export const messages = pgTable(
  "messages",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    role: text("role").$type<"user" | "assistant" | "system">().notNull(),
    parts: jsonb("parts").$type<unknown[]>().notNull(),
    metadata: jsonb("metadata"),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [index("messages_conversation_seq_idx").on(t.conversationId, t.seq)],
);
export type Message = typeof messages.$inferSelect;

/** Raw bytes (PGlite answers a Uint8Array, postgres.js a Buffer: the queries hand out Buffers). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/**
 * A file the owner attached in the chat (or the agent fetched from an https address), checked and stripped of
 * metadata (docs/media.md). Kept in the database so every app instance and both stores serve it; unused ones
 * expire after a day, used ones are kept a while longer for the approval card's preview.
 */
export const uploads = pgTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    mime: text("mime").notNull(),
    size: integer("size").notNull(),
    width: integer("width"),
    height: integer("height"),
    bytes: bytea("bytes").notNull(),
    /** Set when the service fetched the file from an https address instead of the owner attaching it. */
    sourceUrl: text("source_url"),
    createdAt: ts("created_at").notNull(),
    usedAt: ts("used_at"),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("uploads_user_site_idx").on(t.userId, t.siteId), index("uploads_expires_idx").on(t.expiresAt)],
);
export type Upload = typeof uploads.$inferSelect;

export const TOOL_AUDIT_STATUSES = ["started", "ok", "error", "refused", "invalid"] as const;
export type ToolAuditStatus = (typeof TOOL_AUDIT_STATUSES)[number];

/**
 * One row per tool call the model made, written as the call happens: `started` before the site is touched, then
 * `ok` or `error`; `refused` (not allowed, over budget, breaker open, no approval) and `invalid` (unknown tool,
 * bad arguments) never reached the site. A `started` row left behind by a crash means "may have happened".
 */
export const toolAudit = pgTable(
  "tool_audit",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    userId: text("user_id").notNull(),
    siteId: text("site_id").notNull(),
    toolCallId: text("tool_call_id").notNull(),
    operation: text("operation").notNull(),
    risk: text("risk"),
    input: jsonb("input"),
    status: text("status").$type<ToolAuditStatus>().notNull(),
    resultSummary: text("result_summary"),
    error: text("error"),
    startedAt: ts("started_at").notNull(),
    finishedAt: ts("finished_at"),
    durationMs: integer("duration_ms"),
  },
  (t) => [
    index("tool_audit_site_started_idx").on(t.siteId, t.startedAt),
    index("tool_audit_conversation_idx").on(t.conversationId),
  ],
);
export type ToolAudit = typeof toolAudit.$inferSelect;

export const APPROVAL_STATUSES = ["pending", "approved", "denied", "expired", "used"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/**
 * An approval the agent asked the user for: bound to the user, the conversation, the tool call, the operation
 * and a hash of its exact arguments, with an expiry. Used at most once.
 */
export const toolApprovals = pgTable(
  "tool_approvals",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    siteId: text("site_id").notNull(),
    toolCallId: text("tool_call_id").notNull(),
    operation: text("operation").notNull(),
    inputHash: text("input_hash").notNull(),
    input: jsonb("input").notNull(),
    status: text("status").$type<ApprovalStatus>().notNull(),
    requestedAt: ts("requested_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    decidedAt: ts("decided_at"),
    usedAt: ts("used_at"),
  },
  (t) => [uniqueIndex("tool_approvals_call_key").on(t.conversationId, t.toolCallId, t.inputHash)],
);
export type ToolApproval = typeof toolApprovals.$inferSelect;

// ---------------------------------------------------------------- change sets

export const CHANGE_SET_STATUSES = [
  "pending",
  /** A rehearsal claimed by an Apply that is writing it to the live site (one statement; lib/workflows). */
  "applying",
  /** An Undo under way (durable: lib/changes/journal.ts); a restart leaves it for another instance to finish. */
  "undoing",
  "applied",
  "partially_applied",
  "undone",
  "partially_undone",
  "discarded",
] as const;
export type ChangeSetStatus = (typeof CHANGE_SET_STATUSES)[number];
export type ChangeTarget = "live" | "sandbox";

/**
 * Every write of one chat turn on one target (the live site, or a sandbox in issue 13), grouped so the owner can
 * see it, approve it and undo it. `turnId` is the assistant message of the turn (a continued turn keeps it).
 */
export const changeSets = pgTable(
  "change_sets",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    siteId: text("site_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    turnId: text("turn_id").notNull(),
    target: text("target").$type<ChangeTarget>().notNull(),
    sandboxId: text("sandbox_id"),
    status: text("status").$type<ChangeSetStatus>().notNull(),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
    appliedAt: ts("applied_at"),
    undoneAt: ts("undone_at"),
    /** The look at the public site after the last write, Apply or Undo (docs/verification.md). */
    verification: jsonb("verification").$type<ChangeSetVerification | null>(),
    /** Who asked for it (a member in the chat, an MCP client, a job); null for sets made before teams. */
    requestedBy: jsonb("requested_by").$type<Actor | null>(),
    /** When another instance took over an Apply or Undo a dead process left (lib/changes/journal.ts). */
    resumedAt: ts("resumed_at"),
  },
  (t) => [
    uniqueIndex("change_sets_turn_key").on(t.conversationId, t.turnId, t.target),
    index("change_sets_site_created_idx").on(t.siteId, t.createdAt),
    // The run sweeper looks for sets stuck `applying` every few seconds (lib/db/queries/stalled-claims.ts).
    index("change_sets_status_idx").on(t.status),
  ],
);
export type ChangeSet = typeof changeSets.$inferSelect;

/** What a visitor's look at the live site found (API.md, "Verification"). */
export type ChangeSetVerification = {
  status: "pending" | "verified" | "not_visible" | "unreachable";
  checkedAt?: string;
  urls: Array<{ url: string; status: "verified" | "not_visible" | "unreachable"; reason?: string }>;
  purged?: string[];
};

export const CHANGE_ITEM_STATUSES = ["pending", "writing", "applied", "denied", "failed", "undoing", "undone"] as const;
export type ChangeItemStatus = (typeof CHANGE_ITEM_STATUSES)[number];

/** One item change of the plugin's batch (`POST /sitewright/v1/items`): what to send, and what to expect. */
export type ItemChange = {
  ref: string;
  expect: string | null;
  action: "update" | "create" | "delete" | "trash" | "restore";
  fields?: Record<string, unknown>;
};

/**
 * One item a change set changed (or waits to change): what the owner reads (`before`/`after`, the diff), what
 * Sitewright needs to redo or undo it exactly (`change`, `beforeState`), and the versions on both sides.
 */
/** A place where visitors would see a planned item (API.md "Visibility (v1.3)"); `label` is read on the card. */
export type VisiblePlace = { kind: string; label: string; url?: string };

export const changeItems = pgTable(
  "change_items",
  {
    id: text("id").primaryKey(),
    changeSetId: text("change_set_id")
      .notNull()
      .references(() => changeSets.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    /** The tool call that planned it (approvals find their plan by it). */
    toolCallId: text("tool_call_id"),
    /** `page`, `post`, `setting`, `custom_css`, `menu`, `navigation`, `global_styles`, `template_part`... */
    kind: text("kind").notNull(),
    /** The plugin's ref (`post:12`, `option:blogname`...); a creation gets its id once written. */
    ref: text("ref").notNull(),
    action: text("action").$type<ItemChange["action"]>().notNull(),
    title: text("title").notNull(),
    summary: text("summary").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
    /** Whether visitors see it (the plugin decides: API.md "Visibility"): such items wait for the owner's click live. */
    visible: boolean("visible").notNull(),
    /** Where visitors would see it, as the plugin named the places ("its attachment page"); null = not asked. */
    places: jsonb("places").$type<VisiblePlace[]>(),
    change: jsonb("change").$type<ItemChange>().notNull(),
    /** The item's full restorable state before the write (null for a creation). */
    beforeState: jsonb("before_state").$type<Record<string, unknown> | null>(),
    /** The item's full state after the write, as the site answered (null until written, and for a deletion). */
    afterState: jsonb("after_state").$type<Record<string, unknown> | null>(),
    versionRead: text("version_read"),
    versionAfter: text("version_after"),
    revisionId: integer("revision_id"),
    status: text("status").$type<ChangeItemStatus>().notNull(),
    createdAt: ts("created_at").notNull(),
    appliedAt: ts("applied_at"),
    undoneAt: ts("undone_at"),
    /** For a rehearsal's item: the live change set an Apply wrote it in (null until it is live). */
    madeLiveBy: text("made_live_by"),
    /** Who asked for this item (null for items made before teams). */
    actor: jsonb("actor").$type<Actor | null>(),
  },
  (t) => [
    index("change_items_set_idx").on(t.changeSetId, t.seq),
    index("change_items_tool_call_idx").on(t.changeSetId, t.toolCallId),
  ],
);
export type ChangeItem = typeof changeItems.$inferSelect;

export const CHANGE_AUDIT_ACTIONS = ["approve", "deny", "write", "apply", "undo", "discard", "verify"] as const;
export type ChangeAuditAction = (typeof CHANGE_AUDIT_ACTIONS)[number];

/** Who approved, denied, applied or undid which change set items, when, and what came of it. */
export const changeAudit = pgTable(
  "change_audit",
  {
    id: text("id").primaryKey(),
    changeSetId: text("change_set_id").notNull(),
    siteId: text("site_id").notNull(),
    userId: text("user_id").notNull(),
    action: text("action").$type<ChangeAuditAction>().notNull(),
    itemIds: jsonb("item_ids").$type<string[]>().notNull(),
    /** `ok`, `drifted`, `stale`, `failed`, `denied`. */
    outcome: text("outcome").notNull(),
    detail: text("detail"),
    at: ts("at").notNull(),
    /** Who clicked (null for rows written before teams). */
    actor: jsonb("actor").$type<Actor | null>(),
  },
  (t) => [index("change_audit_set_idx").on(t.changeSetId, t.at)],
);
export type ChangeAudit = typeof changeAudit.$inferSelect;

// ------------------------------------------------------------------ MCP clients (OAuth 2.1; docs/mcp.md)

/** A client that registered itself (RFC 7591 dynamic registration): its own name, unverified. */
export const oauthClients = pgTable("oauth_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  redirectUris: jsonb("redirect_uris").$type<string[]>().notNull(),
  /** `none` (a public client, PKCE only) or a confidential client's method, whose secret is stored hashed. */
  authMethod: text("auth_method").notNull(),
  secretHash: text("secret_hash"),
  createdAt: ts("created_at").notNull(),
});
export type OAuthClient = typeof oauthClients.$inferSelect;

export const MCP_ACCESS = ["read", "propose"] as const;
export type McpAccess = (typeof MCP_ACCESS)[number];

/** The owner's consent: which client may use which of their sites, reading only or proposing changes. */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    siteIds: jsonb("site_ids").$type<string[]>().notNull(),
    access: text("access").$type<McpAccess>().notNull(),
    createdAt: ts("created_at").notNull(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [index("oauth_grants_user_idx").on(t.userId)],
);
export type OAuthGrant = typeof oauthGrants.$inferSelect;

/** Authorization codes, stored hashed: single use, minutes long, bound to the client, redirect URI and PKCE. */
export const oauthCodes = pgTable("oauth_codes", {
  codeHash: text("code_hash").primaryKey(),
  grantId: text("grant_id")
    .notNull()
    .references(() => oauthGrants.id, { onDelete: "cascade" }),
  clientId: text("client_id").notNull(),
  redirectUri: text("redirect_uri").notNull(),
  codeChallenge: text("code_challenge").notNull(),
  resource: text("resource").notNull(),
  expiresAt: ts("expires_at").notNull(),
  usedAt: ts("used_at"),
});

/** Access and refresh tokens, stored hashed; refresh tokens rotate within a family, reuse revokes the family. */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    kind: text("kind").$type<"access" | "refresh">().notNull(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    familyId: text("family_id").notNull(),
    resource: text("resource").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [index("oauth_tokens_family_idx").on(t.familyId), index("oauth_tokens_grant_idx").on(t.grantId)],
);
export type OAuthToken = typeof oauthTokens.$inferSelect;

/** A bulk job's lifecycle (API.md, "Bulk jobs"). */
export const JOB_STATUSES = ["planning", "ready", "applying", "done", "cancelled", "failed"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export type JobProgress = {
  planned: number;
  skipped: number;
  failed: number;
  applied: number;
  /** Model tokens the job spent (model-written text only). */
  tokens: number;
  /** How long planning took, set when the job stops planning (the job's time limit bounds planning). */
  planningMs?: number;
};

/** A job's items in counts that add up to its selection (lib/jobs/counts.ts; jobItemCounts computes them). */
export type JobCounts = {
  /** Selected items the runner has not reached yet (or never will: the job stopped). */
  toPlan: number;
  /** Visible changes waiting for the owner's Approve or Reject. */
  waiting: number;
  /** Being written or undone right now. */
  inProgress: number;
  /** Written at once: visitors do not see them (a draft, an image no published page shows, a sandbox copy). */
  written: number;
  /** Approved by the owner and written (for a rehearsal: applied to the live site). */
  approved: number;
  rejected: number;
  /** Selected items the runner left alone: gone since, filled in by a person since, or nothing to change. */
  skipped: number;
  /** Refused when written: a person changed the item on the site since it was planned, or the site refused it. */
  failed: number;
  undone: number;
};

/**
 * A bulk job (docs/bulk-jobs.md): one request that changes many items, run outside the chat request by the job
 * runner, resumable after a restart. Its items are the items of its change set; `cursor` is how many of the
 * selected ids are planned, advanced in the same transaction as the items it planned.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    siteId: text("site_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    changeSetId: text("change_set_id")
      .notNull()
      .references(() => changeSets.id, { onDelete: "cascade" }),
    status: text("status").$type<JobStatus>().notNull(),
    /** `{description, count, type, ids}`: what was selected, fixed when the job starts. */
    selection: jsonb("selection").$type<JobSelection>().notNull(),
    /** The change made to each item (lib/jobs/spec.ts). */
    spec: jsonb("spec").$type<Record<string, unknown>>().notNull(),
    progress: jsonb("progress").$type<JobProgress>().notNull(),
    limits: jsonb("limits").$type<JobLimits>().notNull(),
    cursor: integer("cursor").notNull(),
    /** The runner holding the job, and until when (another instance takes it over after). */
    leaseOwner: text("lease_owner"),
    leaseUntil: ts("lease_until"),
    /** When another instance took over the job's Apply or Undo a dead process left. */
    resumedAt: ts("resumed_at"),
    error: text("error"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [index("jobs_site_created_idx").on(t.siteId, t.createdAt), index("jobs_status_idx").on(t.status)],
);
export type Job = typeof jobs.$inferSelect;
export type JobSelection = { description: string; count: number; type: "page" | "post" | "media"; ids: number[] };
export type JobLimits = { maxItems: number; maxTokens: number; maxMinutes: number };

// ---------------------------------------------------------------- members and the audit chain (docs/teams.md)

/** How an act reached the service: the web app's pages and chat, an MCP client, a bulk job, a WordPress ability. */
export const ACTOR_DOORS = ["chat", "mcp", "job", "ability"] as const;
export type ActorDoor = (typeof ACTOR_DOORS)[number];
/** Who did something: the person, by which door, and for MCP the client's (self-chosen) name. */
export type Actor = { userId: string; name: string; door: ActorDoor; client?: string };

export const MEMBER_ROLES = ["approver", "editor", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A person the site's owner let in, with a role. The owner is `sites.user_id` and has no row here. */
export const siteMembers = pgTable(
  "site_members",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<MemberRole>().notNull(),
    invitedBy: text("invited_by"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("site_members_site_user_key").on(t.siteId, t.userId),
    index("site_members_user_idx").on(t.userId),
  ],
);
export type SiteMember = typeof siteMembers.$inferSelect;

/** An invitation mailed by the owner: only the SHA-256 of its token is kept; single use, 7 days. */
export const siteInvitations = pgTable(
  "site_invitations",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    /** Normalized address the link was sent to. */
    email: text("email").notNull(),
    role: text("role").$type<MemberRole>().notNull(),
    invitedBy: text("invited_by").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    usedBy: text("used_by"),
  },
  (t) => [uniqueIndex("site_invitations_token_key").on(t.tokenHash), index("site_invitations_site_idx").on(t.siteId)],
);
export type SiteInvitation = typeof siteInvitations.$inferSelect;

/**
 * The per-site audit chain: each entry carries its predecessor's hash; `(site_id, seq)` is the key, so two
 * appends can never both take the same place (no fork). No foreign key: the record outlives the pairing.
 */
export const auditEntries = pgTable(
  "audit_entries",
  {
    siteId: text("site_id").notNull(),
    seq: integer("seq").notNull(),
    /** ISO 8601 text, exactly as hashed. */
    at: text("at").notNull(),
    actor: jsonb("actor").$type<Actor | null>(),
    action: text("action").notNull(),
    subject: jsonb("subject").$type<Record<string, unknown>>().notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull(),
    prev: text("prev").notNull(),
    hash: text("hash").notNull(),
    /** Checkpoints only: Ed25519 by the service's audit key. */
    signature: text("signature"),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.seq] })],
);
export type AuditEntryRow = typeof auditEntries.$inferSelect;
// ------------------------------------------------------------------ durable Apply and Undo (docs/change-sets.md)

/** `approve`: pending items written; `undo`: written items reverted; `replay`: a rehearsal's items made live. */
export type ChangeRunKind = "approve" | "undo" | "replay";
/** `atomic`: one refusal refuses the whole run (a turn's set); `queue`: a refused item is skipped (a job's). */
export type ChangeRunMode = "atomic" | "queue";
export type ChangeRunState = "running" | "done" | "refused";

/**
 * One Apply or Undo, recorded before its first write with every entry it will send, batch by batch, and held under
 * a lease (owner instance + expiry, taken and renewed in single statements). A process that dies leaves it
 * `running`; another instance takes it over once the lease has expired and finishes it (lib/changes/journal.ts).
 */
export const changeRuns = pgTable(
  "change_runs",
  {
    id: text("id").primaryKey(),
    changeSetId: text("change_set_id")
      .notNull()
      .references(() => changeSets.id, { onDelete: "cascade" }),
    jobId: text("job_id"),
    userId: text("user_id").notNull(),
    siteId: text("site_id").notNull(),
    kind: text("kind").$type<ChangeRunKind>().notNull(),
    mode: text("mode").$type<ChangeRunMode>().notNull(),
    state: text("state").$type<ChangeRunState>().notNull(),
    /** What the kind needs to finish without the request that started it (a replay's sets, its live set's turn). */
    context: jsonb("context").$type<Record<string, unknown>>().notNull(),
    /** The outcome once finished: what was written and what was skipped (with why). */
    outcome: jsonb("outcome").$type<Record<string, unknown> | null>(),
    leaseOwner: text("lease_owner"),
    leaseUntil: ts("lease_until"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
    resumedAt: ts("resumed_at"),
    finishedAt: ts("finished_at"),
  },
  (t) => [index("change_runs_state_idx").on(t.state, t.leaseUntil), index("change_runs_set_idx").on(t.changeSetId)],
);
export type ChangeRun = typeof changeRuns.$inferSelect;

export type ChangeRunEntryState = "pending" | "writing" | "written" | "skipped";

/** One change a run sends, in order, in its batch; `written` with what the site answered, or `skipped` with why. */
export const changeRunEntries = pgTable(
  "change_run_entries",
  {
    runId: text("run_id")
      .notNull()
      .references(() => changeRuns.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    batch: integer("batch").notNull(),
    /** The change item this entry writes or undoes (a replay: the rehearsal's item). */
    itemId: text("item_id").notNull(),
    title: text("title").notNull(),
    change: jsonb("change").$type<ItemChange>().notNull(),
    /** What the kind records beside the write (a replay's live item: kind, summary, diff). */
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    state: text("state").$type<ChangeRunEntryState>().notNull(),
    result: jsonb("result").$type<Record<string, unknown> | null>(),
    reason: text("reason"),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] }), index("change_run_entries_batch_idx").on(t.runId, t.batch)],
);
export type ChangeRunEntry = typeof changeRunEntries.$inferSelect;
