/**
 * Every table of the service. Each domain has its own section; `type X = typeof x.$inferSelect` sits beside
 * each table. After a change run `npx drizzle-kit generate` and commit the SQL under drizzle/.
 */
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

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
  },
  (t) => [uniqueIndex("users_email_normalized_key").on(t.emailNormalized)],
);
export type User = typeof users.$inferSelect;

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
    containerId: text("container_id"),
    hostPort: integer("host_port"),
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
};
export type SandboxManifest = typeof sandboxManifests.$inferSelect;

/** Named leases (sandbox GC): taken atomically, so one app instance at a time does the work. */
export const sandboxLeases = pgTable("sandbox_leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  expiresAt: ts("expires_at").notNull(),
});
export type SandboxLease = typeof sandboxLeases.$inferSelect;
