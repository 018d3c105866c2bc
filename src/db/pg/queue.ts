// The two pieces of SQL every write that moves a project's queue shares (lifecycle.ts, reorder.ts,
// store.ts): its lock, and its referralBoost.
import { type SQL, sql } from 'drizzle-orm';

/**
 * Locks the project's queue (its ordinal counter row) until the transaction ends. Writes that move a
 * project's queue take it first, so they are serialised per project across instances and the bucket
 * rows are never locked in opposite orders.
 */
export async function lockQueue(tx: { execute(query: SQL): Promise<unknown> }, projectId: string): Promise<void> {
  await tx.execute(sql`SELECT 1 FROM entry_ordinals WHERE project_id = ${projectId} FOR UPDATE`);
}

/** The project's referralBoost, read inside the writing transaction (never a caller's stale copy). */
export const boostOf = (projectId: string): SQL =>
  sql`(SELECT coalesce((settings::jsonb->>'referralBoost')::bigint, 0) FROM projects WHERE id = ${projectId})`;
