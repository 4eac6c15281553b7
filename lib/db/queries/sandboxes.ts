/**
 * Sandbox data access. The rules that must hold across app instances (capacity, pool size, taking a pool
 * member, the GC lease) are single statements or transactions under one advisory lock, never read-then-write.
 */
import { and, asc, desc, eq, gt, inArray, isNotNull, lt, ne, or, sql } from "drizzle-orm";
import { getDb } from "../index";
import {
  changeSets,
  conversationSandboxes,
  type ConversationSandbox,
  deploymentSettings,
  sandboxes,
  sandboxNetworkChecks,
  type SandboxNetworkCheck,
  sandboxLeases,
  sandboxManifests,
  type Sandbox,
  type SandboxManifest,
  type SandboxStatus,
} from "../schema";

/** Serializes capacity and pool decisions between app instances (pg_advisory_xact_lock key). */
const SANDBOX_LOCK = sql`select pg_advisory_xact_lock(hashtext('sitewright.sandboxes'))`;
const POOL: SandboxStatus[] = ["warming", "pooled"];

export type NewSandbox = typeof sandboxes.$inferInsert;

export type SandboxClaim =
  | { outcome: "pooled"; sandbox: Sandbox }
  | { outcome: "cold"; sandbox: Sandbox }
  | { outcome: "capacity_reached"; limit: "service" | "user"; active: number };

/**
 * For one user's new sandbox, atomically: refuse when `max` sandboxes are already handed out, or when this user
 * already holds `maxPerUser`; otherwise take the oldest ready pool member, or (pool empty) insert `cold` as a
 * `starting` row for a cold start. Both counts are read under the same advisory lock as the insert, so
 * concurrent claims from any number of app instances never exceed either bound.
 */
export async function claimSandboxForUser(input: {
  userId: string;
  siteId: string | null;
  max: number;
  /** SANDBOX_MAX_PER_USER: sandboxes one user may hold at once. */
  maxPerUser: number;
  now: Date;
  expiresAt: Date;
  /** The cold row's id and image; the rest of a cold row follows from the claim (`starting`, not from the pool). */
  cold: Pick<NewSandbox, "id" | "imageTag">;
}): Promise<SandboxClaim> {
  const db = await getDb();
  // One statement (drizzle/0017_sandbox_claim.sql): lock, both counts, take or insert, in one round trip.
  const result = await db.execute(
    sql`select outcome, sandbox_id, active from sitewright_claim_sandbox(${input.userId}, ${input.siteId},
      ${input.max}::int, ${input.maxPerUser}::int, ${input.now.toISOString()}::timestamptz,
      ${input.expiresAt.toISOString()}::timestamptz, ${input.cold.id}, ${input.cold.imageTag})`,
  );
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
    outcome: "capacity_service" | "capacity_user" | "pooled" | "cold";
    sandbox_id: string | null;
    active: number;
  }[];
  const decision = rows[0];
  if (!decision) throw new Error("the sandbox claim answered nothing");
  if (decision.outcome === "capacity_service" || decision.outcome === "capacity_user") {
    return {
      outcome: "capacity_reached",
      limit: decision.outcome === "capacity_user" ? "user" : "service",
      active: Number(decision.active),
    };
  }
  // The row as the claim left it: read after the statement, so it holds the claim's own write.
  const [sandbox] = await db.select().from(sandboxes).where(eq(sandboxes.id, decision.sandbox_id!));
  if (!sandbox) throw new Error(`the claimed sandbox ${decision.sandbox_id} vanished`);
  return { outcome: decision.outcome, sandbox };
}

/** Inserts a `warming` pool row when the pool (warming + pooled) is below `poolSize`; else undefined. */
export async function reservePoolSlot(input: { poolSize: number; row: NewSandbox }): Promise<Sandbox | undefined> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(SANDBOX_LOCK);
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(sandboxes)
      .where(inArray(sandboxes.status, POOL));
    if ((count?.n ?? 0) >= input.poolSize) return undefined;
    const [row] = await tx.insert(sandboxes).values(input.row).returning();
    return row;
  });
}

export async function updateSandbox({
  id,
  ...fields
}: { id: string } & Partial<Omit<Sandbox, "id">>): Promise<Sandbox | undefined> {
  const db = await getDb();
  const [row] = await db.update(sandboxes).set(fields).where(eq(sandboxes.id, id)).returning();
  return row;
}

/** Moves a row from one status to another only if it is still in the first; undefined when it was not. */
export async function transitionSandbox(input: {
  id: string;
  from: SandboxStatus[];
  to: SandboxStatus;
  fields?: Partial<Omit<Sandbox, "id" | "status">>;
}): Promise<Sandbox | undefined> {
  const db = await getDb();
  const [row] = await db
    .update(sandboxes)
    .set({ ...input.fields, status: input.to })
    .where(and(eq(sandboxes.id, input.id), inArray(sandboxes.status, input.from)))
    .returning();
  return row;
}

export async function findSandboxById({ id }: { id: string }): Promise<Sandbox | undefined> {
  const db = await getDb();
  const [row] = await db.select().from(sandboxes).where(eq(sandboxes.id, id)).limit(1);
  return row;
}

/** Another user's sandbox is not found: callers answer 404 for both. */
export async function findSandboxForUser({ id, userId }: { id: string; userId: string }): Promise<Sandbox | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(sandboxes)
    .where(and(eq(sandboxes.id, id), eq(sandboxes.userId, userId)))
    .limit(1);
  return row;
}

export async function touchSandbox({ id, now }: { id: string; now: Date }) {
  const db = await getDb();
  await db.update(sandboxes).set({ lastUsedAt: now }).where(eq(sandboxes.id, id));
}

export async function deleteSandboxRow({ id }: { id: string }) {
  const db = await getDb();
  await db.delete(sandboxes).where(eq(sandboxes.id, id));
}

export async function countSandboxes({ statuses }: { statuses: SandboxStatus[] }): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(sandboxes)
    .where(inArray(sandboxes.status, statuses));
  return row?.n ?? 0;
}

export async function listSandboxes(): Promise<Sandbox[]> {
  const db = await getDb();
  return db.select().from(sandboxes).orderBy(asc(sandboxes.createdAt));
}

/**
 * Rows GC should remove: past their expiry; handed out and idle since `idleBefore`; or stuck while being made
 * (`warming`/`starting`/`removing` since `stuckBefore`).
 */
export async function listSandboxesToCollect(input: {
  now: Date;
  idleBefore: Date;
  stuckBefore: Date;
}): Promise<Sandbox[]> {
  const db = await getDb();
  return db
    .select()
    .from(sandboxes)
    .where(
      or(
        lt(sandboxes.expiresAt, input.now),
        and(eq(sandboxes.status, "ready"), isNotNull(sandboxes.userId), lt(sandboxes.lastUsedAt, input.idleBefore)),
        and(inArray(sandboxes.status, ["warming", "starting", "removing"]), lt(sandboxes.createdAt, input.stuckBefore)),
      ),
    );
}

/** Which of these ids still have a row. */
export async function existingSandboxIds({ ids }: { ids: string[] }): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const db = await getDb();
  const rows = await db.select({ id: sandboxes.id }).from(sandboxes).where(inArray(sandboxes.id, ids));
  return new Set(rows.map((row) => row.id));
}

export async function upsertSandboxManifest(input: typeof sandboxManifests.$inferInsert) {
  const db = await getDb();
  const { sandboxId, ...rest } = input;
  await db.insert(sandboxManifests).values(input).onConflictDoUpdate({ target: sandboxManifests.sandboxId, set: rest });
}

export async function findSandboxManifest({ sandboxId }: { sandboxId: string }): Promise<SandboxManifest | undefined> {
  const db = await getDb();
  const [row] = await db.select().from(sandboxManifests).where(eq(sandboxManifests.sandboxId, sandboxId)).limit(1);
  return row;
}

/**
 * Takes (or renews) the named lease for `holder` until `until`, in one statement: it succeeds when the lease is
 * free, expired, or already this holder's. Returns whether `holder` now holds it.
 */
export async function takeSandboxLease(input: {
  name: string;
  holder: string;
  now: Date;
  until: Date;
}): Promise<boolean> {
  const db = await getDb();
  const rows = await db
    .insert(sandboxLeases)
    .values({ name: input.name, holder: input.holder, expiresAt: input.until })
    .onConflictDoUpdate({
      target: sandboxLeases.name,
      set: { holder: input.holder, expiresAt: input.until },
      setWhere: or(lt(sandboxLeases.expiresAt, input.now), eq(sandboxLeases.holder, input.holder)),
    })
    .returning({ holder: sandboxLeases.holder });
  return rows[0]?.holder === input.holder;
}

/** Lets go of a lease this holder has (a pool fill that finished), so another instance may take it at once. */
export async function releaseSandboxLease(input: { name: string; holder: string }): Promise<void> {
  const db = await getDb();
  await db.delete(sandboxLeases).where(and(eq(sandboxLeases.name, input.name), eq(sandboxLeases.holder, input.holder)));
}

/** A deployment-wide setting (every app instance on this database reads the same), or undefined. */
export async function findDeploymentSetting({ key }: { key: string }): Promise<string | undefined> {
  const db = await getDb();
  const [row] = await db
    .select({ value: deploymentSettings.value })
    .from(deploymentSettings)
    .where(eq(deploymentSettings.key, key));
  return row?.value;
}

export async function setDeploymentSetting(input: { key: string; value: string; now: Date }): Promise<void> {
  const db = await getDb();
  await db
    .insert(deploymentSettings)
    .values({ key: input.key, value: input.value, updatedAt: input.now })
    .onConflictDoUpdate({ target: deploymentSettings.key, set: { value: input.value, updatedAt: input.now } });
}

/** The deployment-wide settings whose key starts with `prefix`, oldest first. */
export async function listDeploymentSettings({ prefix }: { prefix: string }) {
  const db = await getDb();
  return db
    .select()
    .from(deploymentSettings)
    .where(sql`starts_with(${deploymentSettings.key}, ${prefix})`)
    .orderBy(asc(deploymentSettings.updatedAt), asc(deploymentSettings.key));
}

export async function deleteDeploymentSetting({ key }: { key: string }): Promise<void> {
  const db = await getDb();
  await db.delete(deploymentSettings).where(eq(deploymentSettings.key, key));
}

/** Records the network check's result for one node of a deployment (the newest replaces the one before). */
export async function recordNetworkCheck(input: SandboxNetworkCheck): Promise<void> {
  const db = await getDb();
  const { namespace, driver, node, ...rest } = input;
  await db
    .insert(sandboxNetworkChecks)
    .values(input)
    .onConflictDoUpdate({
      target: [sandboxNetworkChecks.namespace, sandboxNetworkChecks.driver, sandboxNetworkChecks.node],
      set: rest,
    });
}

/** The last network check of one node of a deployment, if there was one since `since`. */
export async function findNetworkCheck(input: {
  namespace: string;
  driver: SandboxNetworkCheck["driver"];
  node: string;
  since: Date;
}): Promise<SandboxNetworkCheck | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(sandboxNetworkChecks)
    .where(
      and(
        eq(sandboxNetworkChecks.namespace, input.namespace),
        eq(sandboxNetworkChecks.driver, input.driver),
        eq(sandboxNetworkChecks.node, input.node),
        gt(sandboxNetworkChecks.checkedAt, input.since),
      ),
    );
  return row;
}

/** A deployment's network checks made since `since`, one per node. */
export async function listNetworkChecks(input: { namespace: string; since: Date }): Promise<SandboxNetworkCheck[]> {
  const db = await getDb();
  return db
    .select()
    .from(sandboxNetworkChecks)
    .where(and(eq(sandboxNetworkChecks.namespace, input.namespace), gt(sandboxNetworkChecks.checkedAt, input.since)))
    .orderBy(asc(sandboxNetworkChecks.node));
}

/** A user's sandboxes that are theirs to see (the panel), newest first. */
export async function listSandboxesForUser({ userId, now }: { userId: string; now: Date }): Promise<Sandbox[]> {
  const db = await getDb();
  return db
    .select()
    .from(sandboxes)
    .where(
      and(eq(sandboxes.userId, userId), inArray(sandboxes.status, ["starting", "ready"]), gt(sandboxes.expiresAt, now)),
    )
    .orderBy(desc(sandboxes.createdAt));
}

/** The sandbox a conversation rehearses in, if it still exists. */
export async function findConversationSandbox({
  conversationId,
}: {
  conversationId: string;
}): Promise<ConversationSandbox | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(conversationSandboxes)
    .where(eq(conversationSandboxes.conversationId, conversationId));
  return row;
}

/** Links a conversation to its sandbox (replacing a link to one that is gone or stale). */
export async function linkConversationSandbox(input: { conversationId: string; sandboxId: string; now: Date }) {
  const db = await getDb();
  await db
    .insert(conversationSandboxes)
    .values({ conversationId: input.conversationId, sandboxId: input.sandboxId, createdAt: input.now })
    .onConflictDoUpdate({
      target: conversationSandboxes.conversationId,
      set: { sandboxId: input.sandboxId, createdAt: input.now },
    });
}

/** Whether a sandbox holds rehearsed changes still waiting for Apply or Discard. */
export async function hasPendingRehearsal({ sandboxId }: { sandboxId: string }): Promise<boolean> {
  const db = await getDb();
  const [row] = await db
    .select({ id: changeSets.id })
    .from(changeSets)
    .where(
      and(
        eq(changeSets.sandboxId, sandboxId),
        eq(changeSets.target, "sandbox"),
        inArray(changeSets.status, ["pending", "partially_applied"]),
      ),
    )
    .limit(1);
  return Boolean(row);
}

/**
 * Moves a rehearsal (sandbox change set) that still waits for Apply (pending, or partially applied) to applied,
 * partially applied or discarded; undefined when it was not waiting any more.
 */
export async function closeRehearsalChangeSet(input: {
  id: string;
  status: "applied" | "partially_applied" | "discarded";
  now: Date;
}) {
  const db = await getDb();
  const [row] = await db
    .update(changeSets)
    .set({
      status: input.status,
      updatedAt: input.now,
      ...(input.status === "discarded" ? {} : { appliedAt: input.now }),
    })
    .where(
      and(
        eq(changeSets.id, input.id),
        eq(changeSets.target, "sandbox"),
        inArray(changeSets.status, ["pending", "partially_applied"]),
      ),
    )
    .returning();
  return row;
}

/** A user's other rehearsals of one sandbox that wait for Apply, oldest first (reviewed and applied together). */
export async function listWaitingRehearsals(input: {
  sandboxId: string;
  userId: string;
  exceptId: string;
}): Promise<Array<{ id: string; createdAt: Date }>> {
  const db = await getDb();
  return db
    .select({ id: changeSets.id, createdAt: changeSets.createdAt })
    .from(changeSets)
    .where(
      and(
        eq(changeSets.sandboxId, input.sandboxId),
        eq(changeSets.userId, input.userId),
        eq(changeSets.target, "sandbox"),
        inArray(changeSets.status, ["pending", "partially_applied"]),
        ne(changeSets.id, input.exceptId),
      ),
    )
    .orderBy(asc(changeSets.createdAt));
}
