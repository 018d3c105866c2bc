// SQLite implementation of the lifecycle store (see src/db/lifecycle.ts for the queue design).
// better-sqlite3 is synchronous and one process owns the file, so each method is one transaction.
import type Database from 'better-sqlite3';
import type { InviteBatch, LifecycleStore, OutboxOf, QueueQuery, RedeemOutcome, StatusCounts } from '../lifecycle.js';
import type { OutboxWrites } from '../outbox.js';
import { writeOutbox } from './outbox.js';
import { positionAtInsert, type Counted, type EntryRow, type PageArgs } from '../store.js';
import { COLS, needleOf, toRow, type RawRow } from './entry-reads.js';
import { Statements } from './statements.js';
import { withRetry } from './busy.js';
import { recordPlan, type Ranges, reorderSteps, unfinishedPlans } from './reorder.js';
import { unsynced } from './sync.js';
import { durably, type WalSync } from './wal-sync.js';

const LIVE = 'e.project_id = ? AND e.deleted_at IS NULL';
/**
 * A pending entry older than the cut-off: a joined one by its join time (created_at); an imported one
 * (no status token: it never joined here) by when it came to this server or was last sent a confirmation
 * (a re-join resends one), since its created_at is kept from the file and an old list would go at once.
 */
const PENDING_OLDER = 'created_at < ? AND (status_token_hash IS NOT NULL OR max(updated_at, coalesce(confirm_sent_at, 0)) < ?)';
/** The project's referralBoost, read inside the writing transaction. */
export const BOOST_SQL = `(SELECT coalesce(json_extract(settings, '$.referralBoost'), 0) FROM projects WHERE id = @projectId)`;
const BUCKET_SIZE = 1024; // = 1 << 10, the triggers' k >> 10

export class SqliteLifecycle implements LifecycleStore {
  private readonly statements: Statements;
  constructor(
    private readonly db: Database.Database,
    /** Wakes the outbox dispatcher after a commit that wrote to the outbox. */
    private readonly outboxWritten: () => void = () => {},
    /** The log's fsync off the event loop (wal-sync.ts), for the changes a subscriber's link makes. */
    private readonly walSync?: WalSync,
  ) {
    this.statements = new Statements(db);
  }

  /** Writes a change's outbox rows (inside the transaction); true when anything was written. */
  private out<T>(outbox: OutboxOf<T> | undefined, changed: T): boolean {
    return outbox ? writeOutbox(this.db, outbox(changed)) : false;
  }

  private stmt(sql: string, raw = false): Database.Statement {
    return this.statements.get(sql, raw);
  }
  private rows(sql: string, ...args: unknown[]): EntryRow[] {
    return (this.stmt(sql, true).all(...args) as RawRow[]).map(toRow);
  }
  private row(sql: string, ...args: unknown[]): EntryRow | undefined {
    const r = this.stmt(sql, true).get(...args) as RawRow | undefined;
    return r ? toRow(r) : undefined;
  }
  private tx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }
  /**
   * A transaction whose change a client is answered about from a public route (a confirm or accept
   * link, a resent confirmation) or the management API's delete: its fsync runs off the event loop, as
   * a join batch's. (A leave erases with secure_delete and then checkpoints the log on this thread
   * anyway: it keeps FULL.)
   */
  private txDurable<T>(fn: () => T): Promise<T> {
    return durably(this.db, this.walSync, () => this.tx(fn));
  }

  /** Gives `n` consecutive ordinals of the project; answers the first. Call inside a write transaction. */
  reserveOrdinalsSync(projectId: string, n: number): number {
    // Two statements, not one with RETURNING: SQLite answers RETURNING through an ephemeral table with
    // its own page cache, opened and torn down on every call (this runs once per join batch).
    this.stmt(
      `INSERT INTO entry_ordinals(project_id, last) VALUES (?, ?)
       ON CONFLICT(project_id) DO UPDATE SET last = last + excluded.last`,
    ).run(projectId, n);
    const last = this.stmt('SELECT last FROM entry_ordinals WHERE project_id = ?').pluck().get(projectId) as number;
    return last - n + 1;
  }
  /** Gives back the last `n` ordinals reserved in this transaction (a join batch's duplicates used none). */
  releaseOrdinalsSync(projectId: string, n: number): void {
    this.stmt('UPDATE entry_ordinals SET last = last - ? WHERE project_id = ?').run(n, projectId);
  }
  async reserveOrdinals(projectId: string, n: number) {
    return this.tx(() => this.reserveOrdinalsSync(projectId, n));
  }

  /**
   * Adds `delta` counted referrals to a live referrer, moving its k. Inside a transaction. The boost is
   * read from the project row in the same transaction (not the caller's copy), so a concurrent
   * referralBoost change can never leave a stale k behind.
   */
  creditSync(projectId: string, referrerId: string | null, delta: number, boost?: number, rowid?: number): void {
    if (!referrerId) return;
    if (boost !== undefined) {
      // The caller read the boost in this same transaction (boostSync): one read per batch, not per credit.
      // A rowid read in this transaction (referrerSync): the row through the table's own key, not a
      // second descent of the id index.
      const where = rowid === undefined ? 'id = @id' : 'rowid = @rowid AND id = @id';
      this.stmt(
        `UPDATE entries SET referrals = max(0, referrals + @delta), k = ordinal - @boost * max(0, referrals + @delta)
         WHERE ${where} AND project_id = @projectId AND deleted_at IS NULL`,
      ).run({ delta, id: referrerId, projectId, boost, ...(rowid === undefined ? {} : { rowid }) });
      return;
    }
    this.stmt(
      `UPDATE entries SET referrals = max(0, referrals + @delta), k = ordinal - ${BOOST_SQL} * max(0, referrals + @delta)
       WHERE id = @id AND project_id = @projectId AND deleted_at IS NULL`,
    ).run({ delta, id: referrerId, projectId });
  }

  /** The project's referralBoost as stored now. Inside a write transaction, for creditSync. */
  boostSync(projectId: string): number {
    return this.stmt(BOOST_SQL.slice(1, -1).replace('@projectId', '?')).pluck().get(projectId) as number;
  }

  /** Whether a row's referral counts for its referrer (LIFECYCLE.md: live and past pending). */
  private counts(r: EntryRow) {
    return r.referredBy !== null && r.deletedAt === null && r.status !== 'pending';
  }

  /**
   * The live entry of the project holding a referral code (a join's `ref`), as its id and rowid: read
   * in the join batch's transaction, so the rowid is current for that batch's credit (creditSync).
   */
  referrerSync(projectId: string, code: string): { rowid: number; id: string } | undefined {
    return this.stmt(`SELECT e.rowid AS rowid, e.id AS id FROM entries e WHERE ${LIVE} AND e.referral_code = ?`).get(projectId, code) as
      | { rowid: number; id: string }
      | undefined;
  }
  private byStatusToken(hash: string) {
    return this.row(`SELECT ${COLS} FROM entries e WHERE e.status_token_hash = ? AND e.deleted_at IS NULL`, hash);
  }
  async entryByStatusToken(hash: string) {
    return this.byStatusToken(hash);
  }
  async statusByToken(hash: string) {
    // One read transaction: the row, its position and the total from one snapshot.
    return this.db.transaction(() => {
      const row = this.byStatusToken(hash);
      if (!row) return undefined;
      const position = row.status === 'waiting' ? this.positionSync(row.projectId, row.k, row.ordinal) : null;
      return { row, position, total: this.waitingTotalSync(row.projectId) };
    })();
  }
  async entryByConfirmToken(hash: string) {
    return this.row(`SELECT ${COLS} FROM entries e WHERE e.confirm_token_hash = ? AND e.deleted_at IS NULL`, hash);
  }
  async entryByInviteCode(projectId: string, hash: string) {
    return this.row(`SELECT ${COLS} FROM entries e WHERE e.invite_code_hash = ? AND ${LIVE}`, hash, projectId);
  }
  async entryByEmail(projectId: string, emailNorm: string) {
    return this.row(`SELECT ${COLS} FROM entries e WHERE ${LIVE} AND e.email_norm = ?`, projectId, emailNorm);
  }

  positionSync(projectId: string, k: number, ordinal: number): number {
    const bucket = Math.floor(k / BUCKET_SIZE); // SQLite's k >> 10 floors too (arithmetic shift)
    const below = this.stmt('SELECT coalesce(sum(n), 0) FROM position_buckets WHERE project_id = ? AND bucket < ?')
      .pluck()
      .get(projectId, bucket) as number;
    const inBucket = this.stmt(
      `SELECT count(*) FROM entries WHERE project_id = ? AND status = 'waiting' AND deleted_at IS NULL
       AND k >= ? AND (k, ordinal) < (?, ?)`,
    )
      .pluck()
      .get(projectId, bucket * BUCKET_SIZE, k, ordinal) as number;
    return below + inBucket + 1;
  }

  async positions(projectId: string, rows: readonly Pick<EntryRow, 'id' | 'status' | 'k' | 'ordinal'>[]) {
    const out = new Map<string, number>();
    const waiting = rows.filter((r) => r.status === 'waiting');
    if (waiting.length === 0) return out;
    this.db
      .transaction(() => {
        if (waiting.length < 16) for (const r of waiting) out.set(r.id, this.positionSync(projectId, r.k, r.ordinal));
        else this.rankByBucket(projectId, waiting, out);
      })
      .deferred();
    return out;
  }

  /**
   * Positions of many rows at once (list pages, export chunks): per bucket of the rows, the waiting
   * entries before that bucket (one sum over position_buckets for the lowest bucket, then the bucket
   * counts in between) and the bucket's own waiting (k, ordinal) pairs read once, in queue order, where
   * each row's rank is a binary search. Reads each bucket once instead of once per row; the result is
   * exactly positionSync's for every row.
   */
  private rankByBucket(projectId: string, rows: readonly Pick<EntryRow, 'id' | 'k' | 'ordinal'>[], out: Map<string, number>): void {
    const byBucket = new Map<number, Pick<EntryRow, 'id' | 'k' | 'ordinal'>[]>();
    for (const r of rows) {
      const b = Math.floor(r.k / BUCKET_SIZE); // SQLite's k >> 10 floors too (arithmetic shift)
      const list = byBucket.get(b);
      if (list) list.push(r);
      else byBucket.set(b, [r]);
    }
    const buckets = [...byBucket.keys()].sort((a, b) => a - b);
    const lo = buckets[0]!;
    const hi = buckets[buckets.length - 1]!;
    let below = this.stmt('SELECT coalesce(sum(n), 0) FROM position_buckets WHERE project_id = ? AND bucket < ?')
      .pluck()
      .get(projectId, lo) as number;
    const counts = this.stmt('SELECT bucket, n FROM position_buckets WHERE project_id = ? AND bucket >= ? AND bucket < ? ORDER BY bucket')
      .raw()
      .all(projectId, lo, hi) as [number, number][];
    const inBucket = this.stmt(
      `SELECT k, ordinal FROM entries WHERE project_id = ? AND status = 'waiting' AND deleted_at IS NULL
       AND k >= ? AND k < ? ORDER BY k, ordinal`,
    ).raw();
    let at = 0; // the next of `counts` not yet added to `below`
    for (const b of buckets) {
      for (; at < counts.length && counts[at]![0] < b; at++) below += counts[at]![1];
      const queue = inBucket.all(projectId, b * BUCKET_SIZE, (b + 1) * BUCKET_SIZE) as [number, number][];
      for (const r of byBucket.get(b)!) {
        // Entries of the bucket ahead of r: the first index whose (k, ordinal) is not below r's.
        let l = 0;
        let h = queue.length;
        while (l < h) {
          const m = (l + h) >> 1;
          const [k, o] = queue[m]!;
          if (k < r.k || (k === r.k && o < r.ordinal)) l = m + 1;
          else h = m;
        }
        out.set(r.id, below + l + 1);
      }
    }
  }

  /** Entries waiting in the project's queue (the sum of its position buckets). */
  waitingTotalSync(projectId: string): number {
    return this.stmt('SELECT coalesce(sum(n), 0) FROM position_buckets WHERE project_id = ?').pluck().get(projectId) as number;
  }
  async waitingTotal(projectId: string) {
    return this.waitingTotalSync(projectId);
  }

  async queuePage(
    projectId: string,
    q: QueueQuery,
    { offset, limit }: PageArgs,
  ): Promise<Counted<EntryRow> & { positions?: Map<string, number> }> {
    const status = q.sort === 'position' ? 'waiting' : q.status;
    if (q.sort === 'position' && q.status && q.status !== 'waiting') return { rows: [], total: 0 };
    const where: string[] = [LIVE];
    const args: unknown[] = [projectId];
    if (status) {
      where.push('e.status = ?');
      args.push(status);
    }
    if (q.search) {
      const n = needleOf(q.search);
      const patterns = n.kind === 'like' ? n.patterns : [`%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`];
      where.push('(' + patterns.map(() => `e.email LIKE ? ESCAPE '\\' OR e.name LIKE ? ESCAPE '\\'`).join(' OR ') + ')');
      for (const p of patterns) args.push(p, p);
    }
    const order = q.sort === 'position' ? 'e.k, e.ordinal' : 'e.id DESC';
    return this.db
      .transaction((): Counted<EntryRow> & { positions?: Map<string, number> } => {
        const total =
          status === 'waiting' && !q.search
            ? (this.stmt('SELECT coalesce(sum(n), 0) FROM position_buckets WHERE project_id = ?').pluck().get(projectId) as number)
            : (this.stmt(`SELECT count(*) FROM entries e WHERE ${where.join(' AND ')}`)
                .pluck()
                .get(...args) as number);
        if (offset >= total) return { rows: [], total };
        const rows = this.rows(
          `SELECT ${COLS} FROM entries e WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ? OFFSET ?`,
          ...args,
          limit,
          offset,
        );
        if (q.sort !== 'position' || q.search) return { rows, total };
        return { rows, total, positions: new Map(rows.map((r, i) => [r.id, offset + i + 1])) };
      })
      .deferred();
  }

  async queueKeys(projectId: string, after: readonly [number, number] | null, limit: number) {
    const queue = `FROM entries WHERE project_id = ? AND status = 'waiting' AND deleted_at IS NULL`;
    return (
      after
        ? this.stmt(`SELECT k, ordinal ${queue} AND k >= ? AND (k, ordinal) > (?, ?) ORDER BY k, ordinal LIMIT ?`)
            .raw()
            .all(projectId, after[0], after[0], after[1], limit)
        : this.stmt(`SELECT k, ordinal ${queue} ORDER BY k, ordinal LIMIT ?`).raw().all(projectId, limit)
    ) as [number, number][];
  }

  async statusCounts(projectId: string): Promise<StatusCounts> {
    const rows = this.stmt(`SELECT status, count(*) FROM entries WHERE project_id = ? AND deleted_at IS NULL GROUP BY status`)
      .raw()
      .all(projectId) as [string, number][];
    const out: StatusCounts = { pending: 0, waiting: 0, invited: 0, accepted: 0, referred: 0 };
    for (const [s, n] of rows) if (s in out) out[s as keyof StatusCounts] = n;
    out.referred = this.stmt('SELECT count(*) FROM entries WHERE project_id = ? AND deleted_at IS NULL AND referred_by IS NOT NULL')
      .pluck()
      .get(projectId) as number;
    return out;
  }

  async leaderboard(projectId: string, limit: number) {
    return this.rows(
      `SELECT ${COLS} FROM entries e WHERE ${LIVE} AND e.referrals > 0 ORDER BY e.referrals DESC, e.ordinal LIMIT ?`,
      projectId,
      limit,
    );
  }

  async confirm(projectId: string, entryId: string, now: number, _boost: number, outbox?: OutboxOf<EntryRow>) {
    let wrote = false;
    const row = await this.txDurable(() => {
      const r = this.row(`SELECT ${COLS} FROM entries e WHERE ${LIVE} AND e.id = ?`, projectId, entryId);
      if (!r || r.status !== 'pending') return r;
      this.stmt(`UPDATE entries SET status = 'waiting', confirmed_at = ?, updated_at = ? WHERE id = ?`).run(now, now, entryId);
      this.creditSync(projectId, r.referredBy, 1);
      const after = this.row(`SELECT ${COLS} FROM entries e WHERE e.id = ?`, entryId)!;
      // entry.confirmed carries the entry's place in the queue as of this commit.
      if (outbox) positionAtInsert.set(after, this.positionSync(projectId, after.k, after.ordinal));
      wrote = this.out(outbox, after);
      return after;
    });
    if (wrote) this.outboxWritten();
    return row;
  }

  async setConfirmToken(entryId: string, hash: string, now: number, resentBefore: number | null, outbox?: OutboxWrites) {
    let set = false;
    const wrote = await this.txDurable(() => {
      const resend = resentBefore !== null;
      const n = this.stmt(
        `UPDATE entries SET confirm_token_hash = ?, confirm_sent_at = ?, confirm_resent_at = CASE WHEN ? THEN ? ELSE confirm_resent_at END
         WHERE id = ? AND status = 'pending' AND deleted_at IS NULL AND (NOT ? OR confirm_resent_at IS NULL OR confirm_resent_at <= ?)`,
      ).run(hash, now, resend ? 1 : 0, now, entryId, resend ? 1 : 0, resentBefore ?? 0).changes;
      set = n === 1;
      return set && writeOutbox(this.db, outbox);
    });
    if (wrote) this.outboxWritten();
    return set;
  }

  async softDelete(projectId: string, entryId: string, now: number, _boost: number, outbox?: OutboxOf<EntryRow>) {
    let wrote = false;
    const row = await this.txDurable(() => {
      const r = this.row(`SELECT ${COLS} FROM entries e WHERE ${LIVE} AND e.id = ?`, projectId, entryId);
      if (!r) return undefined;
      this.stmt('UPDATE entries SET deleted_at = ?, updated_at = ? WHERE id = ?').run(now, now, entryId);
      if (this.counts(r)) this.creditSync(projectId, r.referredBy, -1);
      const after = { ...r, deletedAt: now, updatedAt: now };
      wrote = this.out(outbox, after);
      return after;
    });
    if (wrote) this.outboxWritten();
    return row;
  }

  async erase(projectId: string, entryId: string, _boost: number, outbox?: OutboxOf<EntryRow>) {
    let wrote = false;
    const done = this.tx(() => {
      const r = this.row(`SELECT ${COLS} FROM entries e WHERE ${LIVE} AND e.id = ?`, projectId, entryId);
      if (!r) return false;
      // secure_delete overwrites the freed cells, so the erased text does not linger in free pages.
      this.db.pragma('secure_delete = ON');
      try {
        this.stmt('DELETE FROM entries WHERE id = ?').run(entryId);
        this.scrubOutbox(projectId, r);
      } finally {
        this.db.pragma('secure_delete = OFF');
      }
      if (this.counts(r)) this.creditSync(projectId, r.referredBy, -1);
      wrote = this.out(outbox, r);
      return true;
    });
    if (wrote) this.outboxWritten();
    // Old page images stay in the WAL until it is reset: checkpoint and truncate it (best effort).
    if (done) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return done;
  }

  /**
   * Erasure reaches the outbox too: the entry's own earlier events keep only its id (not those of
   * entries it referred, which name it in `referredBy`), and emails to it or about it (a sign-up notice
   * to the operator carries its address and name) are dropped: pending ones are not sent. Runs inside
   * erase's transaction, with secure_delete on.
   */
  private scrubOutbox(projectId: string, r: EntryRow) {
    this.stmt(
      `UPDATE events SET payload = json_object('type', type, 'timestamp', json_extract(payload, '$.timestamp'),
         'projectId', project_id, 'data', json_object('entryId', @id))
       WHERE project_id = @projectId AND instr(payload, @quoted) > 0 AND json_extract(payload, '$.data.entryId') = @id`,
    ).run({ id: r.id, projectId, quoted: `"${r.id}"` });
    this.stmt(
      `UPDATE deliveries SET recipient = NULL, data = NULL, last_error = 'recipient erased',
         status = CASE WHEN status = 'pending' THEN 'failed' ELSE status END
       WHERE project_id = @projectId AND kind = 'email' AND (recipient = @email OR instr(data, @quoted) > 0)`,
    ).run({ projectId, email: r.email, quoted: JSON.stringify(r.email) });
  }

  async invite(projectId: string, { sel, codeHash, now, expiresAt, dryRun = false, outbox }: InviteBatch) {
    let wrote = false;
    const run = () => {
      let rows: EntryRow[];
      const missing: string[] = [];
      const notEligible: string[] = [];
      if ('count' in sel) {
        rows = this.rows(
          `SELECT ${COLS} FROM entries e WHERE ${LIVE} AND e.status = 'waiting' ORDER BY e.k, e.ordinal LIMIT ?`,
          projectId,
          sel.count,
        );
      } else {
        rows = [];
        for (const id of new Set(sel.entryIds)) {
          const r = this.row(`SELECT ${COLS} FROM entries e WHERE ${LIVE} AND e.id = ?`, projectId, id);
          if (!r) missing.push(id);
          else if (r.status !== 'waiting' && r.status !== 'invited') notEligible.push(id);
          else rows.push(r);
        }
      }
      if (dryRun || missing.length || notEligible.length) return { rows, missing, notEligible };
      const upd = this.stmt(
        `UPDATE entries SET status = 'invited', invited_at = ?, invite_code_hash = ?, invite_expires_at = ?, updated_at = ?
         WHERE id = ?`,
      );
      const out = rows.map((r) => {
        const hash = codeHash(r.id);
        upd.run(now, hash, expiresAt, now, r.id);
        return { ...r, status: 'invited' as const, invitedAt: now, inviteCodeHash: hash, inviteExpiresAt: expiresAt, updatedAt: now };
      });
      if (out.length) wrote = this.out(outbox, out);
      return { rows: out, missing, notEligible };
    };
    if (dryRun) return this.db.transaction(run).deferred();
    const result = this.tx(run);
    if (wrote) this.outboxWritten();
    return result;
  }

  async redeem(projectId: string, hash: string, now: number, outbox?: OutboxOf<EntryRow>): Promise<RedeemOutcome> {
    let wrote = false;
    const result = await this.txDurable((): RedeemOutcome => {
      const r = this.row(`SELECT ${COLS} FROM entries e WHERE e.invite_code_hash = ? AND ${LIVE}`, hash, projectId);
      if (!r || (r.status !== 'invited' && r.status !== 'accepted')) return { result: 'unknown' };
      if (r.status === 'accepted') return { result: 'used', row: r };
      if (r.inviteExpiresAt !== null && r.inviteExpiresAt <= now) return { result: 'expired', row: r };
      this.stmt(`UPDATE entries SET status = 'accepted', accepted_at = ?, updated_at = ? WHERE id = ?`).run(now, now, r.id);
      const after: EntryRow = { ...r, status: 'accepted', acceptedAt: now, updatedAt: now };
      wrote = this.out(outbox, after);
      return { result: 'accepted', row: after };
    });
    if (wrote) this.outboxWritten();
    return result;
  }

  /**
   * Re-keys the project's referrers (k = ordinal - referralBoost * referrals) from the boost in its
   * settings row: called inside the transaction that changes the setting (SqliteStore.updateProjectSettings).
   */
  rekeyReferrers(projectId: string) {
    this.stmt(`UPDATE entries SET k = ordinal - ${BOOST_SQL} * referrals WHERE project_id = @projectId AND referrals > 0`).run({
      projectId,
    });
  }

  /**
   * Puts an import's rows in date order, in steps with turns of the event loop between them
   * (reorder.ts); each transaction of moves commits without an fsync, and the import is answered after
   * the log's fdatasync (wal-sync.ts).
   */
  async orderImported(projectId: string, ranges: Ranges) {
    if (!ranges.length) return 0;
    this.walSync?.assertSound();
    let planId = 0;
    await withRetry(() =>
      this.commitMoves(() => {
        planId = recordPlan(this.db, projectId, ranges);
      }),
    );
    const steps = reorderSteps(this.db, projectId, ranges, planId, BOOST_SQL);
    let r = steps.next();
    while (!r.done) {
      const step = r.value;
      if (step) await withRetry(() => this.commitMoves(step));
      await new Promise<void>((resolve) => setImmediate(resolve));
      r = steps.next();
    }
    await this.walSync?.durable();
    return r.value;
  }

  /** Finishes the reorders a crash left half done (reorder.ts), in one go: the store is not serving yet. */
  finishReorders(): number {
    const plans = unfinishedPlans(this.db);
    for (const p of plans) {
      const steps = reorderSteps(this.db, p.projectId, p.ranges, p.id, BOOST_SQL);
      for (let r = steps.next(); !r.done; r = steps.next()) if (r.value) this.tx(r.value);
    }
    return plans.length;
  }

  /** One transaction of a reorder, committed without an fsync when the log has its own (wal-sync.ts). */
  private commitMoves(fn: () => void): void {
    if (this.walSync) unsynced(this.db, () => this.tx(fn));
    else this.tx(fn);
  }

  async purgePending(projectId: string, before: number) {
    return this.tx(() => {
      this.db.pragma('secure_delete = ON');
      try {
        const gone = this.stmt(
          `DELETE FROM entries WHERE project_id = ? AND status = 'pending' AND deleted_at IS NULL AND ${PENDING_OLDER} RETURNING id, email`,
        ).all(projectId, before, before) as { id: string; email: string }[];
        if (gone.length) {
          // As an erasure does: their events keep only their id, their emails (the confirmation) lose
          // address and content; nothing of them waits 30 days for the outbox prune.
          this.stmt(
            `UPDATE events SET payload = json_object('type', type, 'timestamp', json_extract(payload, '$.timestamp'),
               'projectId', project_id, 'data', json_object('entryId', json_extract(payload, '$.data.entryId')))
             WHERE project_id = ? AND json_extract(payload, '$.data.entryId') IN (SELECT value FROM json_each(?))`,
          ).run(projectId, JSON.stringify(gone.map((g) => g.id)));
          this.stmt(
            `UPDATE deliveries SET recipient = NULL, data = NULL, last_error = 'recipient erased',
               status = CASE WHEN status = 'pending' THEN 'failed' ELSE status END
             WHERE project_id = ? AND kind = 'email' AND recipient IN (SELECT value FROM json_each(?))`,
          ).run(projectId, JSON.stringify(gone.map((g) => g.email)));
        }
        return gone.length;
      } finally {
        this.db.pragma('secure_delete = OFF');
      }
    });
  }

  async projectsWithPending(before: number) {
    return this.stmt(`SELECT DISTINCT project_id FROM entries WHERE status = 'pending' AND deleted_at IS NULL AND ${PENDING_OLDER}`)
      .pluck()
      .all(before, before) as string[];
  }
}
