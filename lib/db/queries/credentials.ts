import { and, eq, isNotNull } from "drizzle-orm";
import { getDb } from "../index";
import { sandboxes, sites } from "../schema";

/** The tables that hold a sealed credential bound to the row's id (associated data). */
const credentialTables = { sites, sandboxes } as const;
export type CredentialTable = keyof typeof credentialTables;

/** Every row of the table that holds a sealed credential: id and the sealed value as stored. */
export async function listSealedCredentials(input: { table: CredentialTable }) {
  const table = credentialTables[input.table];
  const db = await getDb();
  const rows = await db
    .select({ id: table.id, credentials: table.credentials })
    .from(table)
    .where(isNotNull(table.credentials));
  return rows as Array<{ id: string; credentials: string }>;
}

/** Replaces a row's sealed credential only if it still holds `from` (a re-pairing racing the swap wins). */
export async function swapSealedCredential(input: { table: CredentialTable; id: string; from: string; to: string }) {
  const table = credentialTables[input.table];
  const db = await getDb();
  const updated = await db
    .update(table)
    .set({ credentials: input.to })
    .where(and(eq(table.id, input.id), eq(table.credentials, input.from)))
    .returning({ id: table.id });
  return updated.length > 0;
}
