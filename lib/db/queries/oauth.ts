/** MCP clients over OAuth 2.1 (docs/mcp.md): clients, the owner's grants, codes and tokens (hashes only). */
import { and, desc, eq, gt, inArray, isNull, lt } from "drizzle-orm";
import { getDb } from "../index";
import {
  type McpAccess,
  type OAuthClient,
  type OAuthGrant,
  type OAuthToken,
  oauthClients,
  oauthCodes,
  oauthGrants,
  oauthTokens,
} from "../schema";

export async function insertOAuthClient(input: {
  id: string;
  name: string;
  redirectUris: string[];
  authMethod: string;
  secretHash: string | null;
  now: Date;
}): Promise<OAuthClient> {
  const db = await getDb();
  const [row] = await db
    .insert(oauthClients)
    .values({ ...input, createdAt: input.now })
    .returning();
  return row!;
}

export async function findOAuthClient(input: { id: string }): Promise<OAuthClient | undefined> {
  const db = await getDb();
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, input.id)).limit(1);
  return row;
}

export async function insertOAuthGrant(input: {
  id: string;
  userId: string;
  clientId: string;
  siteIds: string[];
  access: McpAccess;
  now: Date;
}): Promise<OAuthGrant> {
  const db = await getDb();
  const [row] = await db
    .insert(oauthGrants)
    .values({ ...input, createdAt: input.now })
    .returning();
  return row!;
}

/** A grant that is still in force. */
export async function findActiveGrant(input: { id: string }): Promise<OAuthGrant | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(oauthGrants)
    .where(and(eq(oauthGrants.id, input.id), isNull(oauthGrants.revokedAt)))
    .limit(1);
  return row;
}

/** The owner's connected clients, newest first, with each client's self-given name. */
export async function listGrantsForUser(input: {
  userId: string;
}): Promise<Array<OAuthGrant & { clientName: string }>> {
  const db = await getDb();
  const rows = await db
    .select({ grant: oauthGrants, clientName: oauthClients.name })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .where(and(eq(oauthGrants.userId, input.userId), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt));
  return rows.map((row) => ({ ...row.grant, clientName: row.clientName }));
}

/** Revokes the owner's grant and every token issued under it; false when it was not theirs or already revoked. */
export async function revokeGrant(input: { id: string; userId: string; now: Date }): Promise<boolean> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(oauthGrants)
      .set({ revokedAt: input.now })
      .where(and(eq(oauthGrants.id, input.id), eq(oauthGrants.userId, input.userId), isNull(oauthGrants.revokedAt)))
      .returning({ id: oauthGrants.id });
    if (rows.length === 0) return false;
    await tx
      .update(oauthTokens)
      .set({ revokedAt: input.now })
      .where(and(eq(oauthTokens.grantId, input.id), isNull(oauthTokens.revokedAt)));
    return true;
  });
}

type Transaction = Parameters<Parameters<Awaited<ReturnType<typeof getDb>>["transaction"]>[0]>[0];

/** An application that was connected to the account until a recovery step ended its grant. */
export type EndedConnection = { clientName: string; connectedAt: Date };

/**
 * Ends every grant of the user still in force and every token issued under them (codes die with their grant), in
 * the caller's transaction: what a password change, a reset and "sign out everywhere" do together with ending
 * the login sessions. Returns the applications that were connected, oldest first, for the notice mail.
 */
export async function revokeGrantsForUserIn(
  tx: Transaction,
  input: { userId: string; now: Date },
): Promise<EndedConnection[]> {
  const grants = await tx
    .update(oauthGrants)
    .set({ revokedAt: input.now })
    .where(and(eq(oauthGrants.userId, input.userId), isNull(oauthGrants.revokedAt)))
    .returning({ id: oauthGrants.id, clientId: oauthGrants.clientId, createdAt: oauthGrants.createdAt });
  if (grants.length === 0) return [];
  const ids = grants.map((grant) => grant.id);
  await tx
    .update(oauthTokens)
    .set({ revokedAt: input.now })
    .where(and(inArray(oauthTokens.grantId, ids), isNull(oauthTokens.revokedAt)));
  const clients = await tx
    .select({ id: oauthClients.id, name: oauthClients.name })
    .from(oauthClients)
    .where(
      inArray(
        oauthClients.id,
        grants.map((grant) => grant.clientId),
      ),
    );
  const names = new Map(clients.map((client) => [client.id, client.name]));
  return grants
    .map((grant) => ({ clientName: names.get(grant.clientId) ?? "Unnamed client", connectedAt: grant.createdAt }))
    .sort((a, b) => a.connectedAt.getTime() - b.connectedAt.getTime());
}

export async function touchGrant(input: { id: string; now: Date }): Promise<void> {
  const db = await getDb();
  await db.update(oauthGrants).set({ lastUsedAt: input.now }).where(eq(oauthGrants.id, input.id));
}

export async function insertOAuthCode(input: {
  codeHash: string;
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  expiresAt: Date;
}): Promise<void> {
  const db = await getDb();
  await db.insert(oauthCodes).values(input);
}

export type CodeUse =
  | { ok: true; grantId: string; clientId: string; redirectUri: string; codeChallenge: string; resource: string }
  | { ok: false; reusedGrantId?: string };

/**
 * Spends a code in one statement: only an unused, unexpired code is returned, once. A code that was already used
 * reports its grant, so the caller can revoke what the first use issued (RFC 6749 §4.1.2).
 */
export async function spendOAuthCode(input: { codeHash: string; now: Date }): Promise<CodeUse> {
  const db = await getDb();
  const [row] = await db
    .update(oauthCodes)
    .set({ usedAt: input.now })
    .where(and(eq(oauthCodes.codeHash, input.codeHash), isNull(oauthCodes.usedAt), gt(oauthCodes.expiresAt, input.now)))
    .returning();
  if (row) {
    return {
      ok: true,
      grantId: row.grantId,
      clientId: row.clientId,
      redirectUri: row.redirectUri,
      codeChallenge: row.codeChallenge,
      resource: row.resource,
    };
  }
  const [used] = await db
    .select({ grantId: oauthCodes.grantId, usedAt: oauthCodes.usedAt })
    .from(oauthCodes)
    .where(eq(oauthCodes.codeHash, input.codeHash))
    .limit(1);
  return used?.usedAt ? { ok: false, reusedGrantId: used.grantId } : { ok: false };
}

export async function insertOAuthTokens(
  rows: Array<{
    tokenHash: string;
    kind: "access" | "refresh";
    grantId: string;
    familyId: string;
    resource: string;
    createdAt: Date;
    expiresAt: Date;
  }>,
): Promise<void> {
  const db = await getDb();
  await db.insert(oauthTokens).values(rows);
}

/** An access token in force (not expired, not revoked, its grant not revoked), with its grant. */
export async function findAccessToken(input: {
  tokenHash: string;
  now: Date;
}): Promise<{ token: OAuthToken; grant: OAuthGrant } | undefined> {
  const db = await getDb();
  const [row] = await db
    .select({ token: oauthTokens, grant: oauthGrants })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(
      and(
        eq(oauthTokens.tokenHash, input.tokenHash),
        eq(oauthTokens.kind, "access"),
        isNull(oauthTokens.revokedAt),
        gt(oauthTokens.expiresAt, input.now),
        isNull(oauthGrants.revokedAt),
      ),
    )
    .limit(1);
  return row;
}

export type RefreshUse = { ok: true; token: OAuthToken } | { ok: false; reusedFamilyId?: string };

/** Spends a refresh token in one statement (rotation); a spent one reports its family for reuse detection. */
export async function spendRefreshToken(input: { tokenHash: string; now: Date }): Promise<RefreshUse> {
  const db = await getDb();
  const [row] = await db
    .update(oauthTokens)
    .set({ usedAt: input.now })
    .where(
      and(
        eq(oauthTokens.tokenHash, input.tokenHash),
        eq(oauthTokens.kind, "refresh"),
        isNull(oauthTokens.usedAt),
        isNull(oauthTokens.revokedAt),
        gt(oauthTokens.expiresAt, input.now),
      ),
    )
    .returning();
  if (row) return { ok: true, token: row };
  const [spent] = await db
    .select({ familyId: oauthTokens.familyId, usedAt: oauthTokens.usedAt })
    .from(oauthTokens)
    .where(and(eq(oauthTokens.tokenHash, input.tokenHash), eq(oauthTokens.kind, "refresh")))
    .limit(1);
  return spent?.usedAt ? { ok: false, reusedFamilyId: spent.familyId } : { ok: false };
}

export async function revokeTokenFamily(input: { familyId: string; now: Date }): Promise<void> {
  const db = await getDb();
  await db
    .update(oauthTokens)
    .set({ revokedAt: input.now })
    .where(and(eq(oauthTokens.familyId, input.familyId), isNull(oauthTokens.revokedAt)));
}

export async function revokeGrantTokens(input: { grantId: string; now: Date }): Promise<void> {
  const db = await getDb();
  await db
    .update(oauthTokens)
    .set({ revokedAt: input.now })
    .where(and(eq(oauthTokens.grantId, input.grantId), isNull(oauthTokens.revokedAt)));
}

/** RFC 7009: revokes the token (a refresh token takes its whole family) if it belongs to the client. */
export async function revokeClientToken(input: { tokenHash: string; clientId: string; now: Date }): Promise<void> {
  const db = await getDb();
  const [row] = await db
    .select({ familyId: oauthTokens.familyId, kind: oauthTokens.kind })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(and(eq(oauthTokens.tokenHash, input.tokenHash), eq(oauthGrants.clientId, input.clientId)))
    .limit(1);
  if (!row) return;
  if (row.kind === "refresh") await revokeTokenFamily({ familyId: row.familyId, now: input.now });
  else
    await db
      .update(oauthTokens)
      .set({ revokedAt: input.now })
      .where(and(eq(oauthTokens.tokenHash, input.tokenHash), isNull(oauthTokens.revokedAt)));
}

/** Tokens and codes that expired before `before`, removed (the maintenance sweep; reuse of them is moot by then). */
export async function deleteDeadOAuthTokens(input: { before: Date }): Promise<number> {
  const db = await getDb();
  const rows = await db
    .delete(oauthTokens)
    .where(lt(oauthTokens.expiresAt, input.before))
    .returning({ hash: oauthTokens.tokenHash });
  await db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, input.before));
  return rows.length;
}
