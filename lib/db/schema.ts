/**
 * Every table of the service. Each domain has its own section; `type X = typeof x.$inferSelect` sits beside
 * each table. After a change run `npx drizzle-kit generate` and commit the SQL under drizzle/.
 */
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

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

