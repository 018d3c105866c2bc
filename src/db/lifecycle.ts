// The lifecycle part of the Store (LIFECYCLE.md): statuses, exact queue positions, referrals, the
// subscriber's tokens and invites. Each dialect implements it (src/db/{sqlite,pg}/lifecycle.ts).
//
// Queue: waiting entries in order of k = ordinal − referralBoost × referrals, then ordinal. The
// position of a waiting entry is 1 + the waiting entries ahead of it, counted from position_buckets
// (waiting entries per 1024-wide bucket of k, kept by triggers) plus an index range inside its own
// bucket, so it is exact at every moment and costs O(buckets) + O(1024) at most, never O(n).
// Every write that moves the queue (join, confirm, credit, delete, invite, boost change) runs in one
// transaction; on PostgreSQL it first locks the project's entry_ordinals row, so such writes of one
// project are serialised across instances.
// Events (entry.confirmed, entry.invited, …) belong in the same transactions: the `onChange` seam
// of each mutating method is called inside the transaction with the rows it changed.
import type { OutboxWrites } from './outbox.js';
import type { Counted, EntryRow, EntryStatus, PageArgs } from './store.js';

/** Builds the events/emails of a change from the changed row(s); written in the change's transaction. */
export type OutboxOf<T> = (changed: T) => OutboxWrites | undefined;

export const STATUSES: readonly EntryStatus[] = ['pending', 'waiting', 'invited', 'accepted'];

export interface QueueQuery {
  status?: EntryStatus;
  /** `newest` (id descending, the default) or `position` (waiting entries in queue order). */
  sort: 'newest' | 'position';
  search?: string;
}

export interface StatusCounts {
  pending: number;
  waiting: number;
  invited: number;
  accepted: number;
  /** Live entries that came through a referral. */
  referred: number;
}

/** How an invite batch picks its entries. */
export type InviteSelection = { count: number } | { entryIds: string[] };

/** One invite batch (LifecycleStore.invite). */
export interface InviteBatch {
  /** The first `count` waiting entries in queue order, or the given ids. */
  sel: InviteSelection;
  /** One code hash per entry. */
  codeHash: (entryId: string) => string;
  now: number;
  expiresAt: number;
  /** Select and answer, write nothing. */
  dryRun?: boolean;
  outbox?: OutboxOf<EntryRow[]>;
}

/** One invited entry and the hash of its fresh code (the caller made the codes). */
export interface InviteGrant {
  entryId: string;
  codeHash: string;
}

export type RedeemOutcome = { result: 'accepted'; row: EntryRow } | { result: 'used' | 'expired'; row: EntryRow } | { result: 'unknown' };

export interface LifecycleStore {
  /** The live entry whose status token hashes to `hash`. */
  entryByStatusToken(hash: string): Promise<EntryRow | undefined>;
  /**
   * That entry with its exact position (null unless waiting) and the project's waiting total, read
   * together (one statement on PostgreSQL: the subscriber's status page is one round trip).
   */
  statusByToken(hash: string): Promise<{ row: EntryRow; position: number | null; total: number } | undefined>;
  /** The live entry whose confirmation token hashes to `hash`. */
  entryByConfirmToken(hash: string): Promise<EntryRow | undefined>;
  /** The live entry of the project whose invite code hashes to `hash`. */
  entryByInviteCode(projectId: string, hash: string): Promise<EntryRow | undefined>;
  /** The live entry of the project with this normalised email. */
  entryByEmail(projectId: string, emailNorm: string): Promise<EntryRow | undefined>;

  /** Exact positions of the waiting rows among `rows` (entryId → position). */
  positions(projectId: string, rows: readonly Pick<EntryRow, 'id' | 'status' | 'k' | 'ordinal'>[]): Promise<Map<string, number>>;
  /** Waiting entries of the project. */
  waitingTotal(projectId: string): Promise<number>;
  /**
   * A page of live entries filtered by status and/or sorted by position, with the exact total. In queue
   * order without a search the page is a slice of the queue, so it comes with its rows' positions
   * (offset + 1, offset + 2, …, read in the page's snapshot) and needs no position query.
   */
  queuePage(projectId: string, q: QueueQuery, page: PageArgs): Promise<Counted<EntryRow> & { positions?: Map<string, number> }>;
  statusCounts(projectId: string): Promise<StatusCounts>;
  /**
   * Up to `limit` waiting entries' queue keys `[k, ordinal]` in queue order, after the key `after`
   * (exclusive; null: from the head). Pages of these read the whole queue in one pass (exports).
   */
  queueKeys(projectId: string, after: readonly [number, number] | null, limit: number): Promise<[number, number][]>;
  /** Live entries with referrals > 0, most referrals first (earlier join first on ties). */
  leaderboard(projectId: string, limit: number): Promise<EntryRow[]>;

  /** pending → waiting (credits the referrer); the row after the change, or the row as it was when not pending. */
  confirm(projectId: string, entryId: string, now: number, boost: number, outbox?: OutboxOf<EntryRow>): Promise<EntryRow | undefined>;
  /**
   * Stores a confirmation token hash for a pending entry, with `outbox` (the email) in the same
   * transaction. `resentBefore` set: a resend, done only when the entry's last resend is at or before it
   * (or there was none), and recorded as `now`; concurrent re-joins thus send one email. False when
   * nothing was written (not pending, or resent too recently).
   */
  setConfirmToken(entryId: string, hash: string, now: number, resentBefore: number | null, outbox?: OutboxWrites): Promise<boolean>;
  /** Soft delete (admin): leaves the queue; a counted referral is taken back from the referrer. */
  softDelete(projectId: string, entryId: string, now: number, boost: number, outbox?: OutboxOf<EntryRow>): Promise<EntryRow | undefined>;
  /** Erases the row for good (the subscriber's leave): nothing of it stays. False when not found. */
  erase(projectId: string, entryId: string, boost: number, outbox?: OutboxOf<EntryRow>): Promise<boolean>;
  /**
   * Invites in one transaction: the first `count` waiting entries in queue order, or the given ids
   * (each must be waiting or invited, else the whole batch fails with `notEligible`). `codeHash`
   * makes one code hash per entry. Resolves with the invited rows in queue/given order.
   */
  invite(projectId: string, batch: InviteBatch): Promise<{ rows: EntryRow[]; missing: string[]; notEligible: string[] }>;
  /** invited → accepted for a live, unexpired code of the project; exactly one of concurrent calls wins. */
  redeem(projectId: string, hash: string, now: number, outbox?: OutboxOf<EntryRow>): Promise<RedeemOutcome>;
  /** Recomputes k for the project's entries with referrals after a referralBoost change. */
  /** Erases pending entries created before `before` in the given project; how many. */
  purgePending(projectId: string, before: number): Promise<number>;
  /** Projects that have pending entries created before `before`. */
  projectsWithPending(before: number): Promise<string[]>;
  /**
   * Reserves `n` consecutive join ordinals for the project and answers the first. Use it inside the
   * transaction that inserts the rows (imports: give them in createdAt order), on SQLite through
   * `reserveOrdinalsSync`.
   */
  reserveOrdinals(projectId: string, n: number): Promise<number>;
  /**
   * Puts an import's rows in createdAt order (ties: the order they were given ordinals in): the entries
   * of the project whose ordinals lie in `ranges` (inclusive, sorted, what the import's batches took)
   * exchange those ordinals so that they ascend with createdAt, and their k follows. For an import
   * whose batches came in out of date order (each batch is in order by itself). Resolves with how many
   * rows moved.
   */
  orderImported(projectId: string, ranges: readonly (readonly [number, number])[]): Promise<number>;
}
