// A SQLite join batch: one transaction (its commit, and the fsync after it, are the caller's: see
// SqliteStore's Batcher) that takes the ordinals, inserts the rows, credits referrers, writes the
// outbox rows someone reads, and gives every new entry its exact position.
import type Database from 'better-sqlite3';
import type { OutboxWrites } from '../outbox.js';
import { type EntryRow, type InsertEntryResult, positionAtInsert } from '../store.js';
import type { SqliteLifecycle } from './lifecycle.js';
import { writeOutbox } from './outbox.js';
import { INSERT_ENTRY_SQL, TOUCH_KEY_SQL } from './pragmas.js';
import { type SqliteSurface, withFields } from './surface.js';

/** A join waiting for its batch. */
export interface PendingJoin {
  row: EntryRow;
  keyId: string;
  outbox: ((inserted: EntryRow) => OutboxWrites) | undefined;
  /** The join's `ref` (a referral code) when the row came without referredBy: resolved in the batch. */
  ref: string | undefined;
}

/**
 * The join batch's transaction function on `sqlite` (call it with `.immediate(batch)`); answers each
 * join's outcome in order. `wroteOutbox` is called when a row of the batch wrote outbox rows.
 */
export function joinBatch(sqlite: Database.Database, lifecycle: SqliteLifecycle, surface: SqliteSurface, wroteOutbox: () => void) {
  const insertEntry = sqlite.prepare(INSERT_ENTRY_SQL);
  const touchKey = sqlite.prepare(TOUCH_KEY_SQL);
  return sqlite.transaction((batch: PendingJoin[]): InsertEntryResult[] => {
    surface.writePendingSolutions(); // captcha solutions of these joins: durable with them
    const used = new Map<string, number>();
    // Join ordinals: one reservation per project for the whole batch, not one upsert per row. A row
    // takes the next one only once it is inserted, and what the batch's duplicates left unused is
    // given back below (one writer: nobody reserved any meanwhile), so the ordinals are the sequence
    // of the entries created, with gaps only where entries were deleted (LIFECYCLE.md).
    const reserved = new Map<string, number>();
    for (const { row } of batch) reserved.set(row.projectId, (reserved.get(row.projectId) ?? 0) + 1);
    const next = new Map<string, number>();
    for (const [projectId, n] of reserved) next.set(projectId, lifecycle.reserveOrdinalsSync(projectId, n));
    const firstOrdinal = new Map(next);
    // Waiting entries per project, read once per batch before its first insert and kept in step: a new
    // waiting entry has the largest k (k = its ordinal, everyone else's k <= their smaller ordinal, as
    // referralBoost >= 0), so its exact position is this count right after its insert. Credits in the
    // batch move referrers (always ahead of it), never the count.
    const waiting = new Map<string, number>();
    const boosts = new Map<string, number>(); // referralBoost per project, read in this transaction
    const heard = new Map<string, string[]>(); // subscribed webhooks per project and type (writeOutbox)
    const out = batch.map(({ row, keyId, outbox, ref }): InsertEntryResult => {
      used.set(keyId, Math.max(used.get(keyId) ?? 0, row.createdAt)); // the key was used, duplicate or not
      row.ordinal = next.get(row.projectId)!;
      row.k = row.ordinal;
      // The referrer, read in this transaction: its rowid lets the credit below skip the id index.
      // Resolved again by every attempt (a batch that failed is retried row by row).
      const referrer = ref === undefined ? undefined : lifecycle.referrerSync(row.projectId, ref);
      if (ref !== undefined) row.referredBy = referrer?.id ?? null;
      const isWaiting = row.status === 'waiting';
      if (isWaiting && !waiting.has(row.projectId)) waiting.set(row.projectId, lifecycle.waitingTotalSync(row.projectId));
      if (insertEntry.run(withFields(row)).changes !== 1) return 'duplicate';
      next.set(row.projectId, row.ordinal + 1);
      if (isWaiting) {
        const n = waiting.get(row.projectId)! + 1;
        waiting.set(row.projectId, n);
        positionAtInsert.set(row, n);
        if (row.referredBy) {
          let boost = boosts.get(row.projectId);
          if (boost === undefined) {
            boost = lifecycle.boostSync(row.projectId);
            boosts.set(row.projectId, boost);
          }
          lifecycle.creditSync(row.projectId, row.referredBy, 1, boost, referrer?.rowid);
        }
      } else positionAtInsert.set(row, null);
      if (outbox && writeOutbox(sqlite, outbox(row), heard)) wroteOutbox();
      return 'inserted';
    });
    for (const [keyId, at] of used) touchKey.run(at, keyId);
    for (const [projectId, n] of reserved) {
      const unused = n - (next.get(projectId)! - firstOrdinal.get(projectId)!);
      if (unused > 0) lifecycle.releaseOrdinalsSync(projectId, unused);
    }
    return out;
  });
}
