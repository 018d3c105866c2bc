// PostgreSQL implementation of the lifecycle store (see src/db/lifecycle.ts for the queue design).
// Writes that move a project's queue first lock its entry_ordinals row (lockQueue), so they are
// serialised per project across instances and the bucket rows are never locked in opposite orders.
import { and, asc, count, desc, eq, getTableColumns, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { InviteBatch, LifecycleStore, OutboxOf, QueueQuery, RedeemOutcome, StatusCounts } from '../lifecycle.js';
import type { OutboxWrites } from '../outbox.js';
import type { Exec } from './named.js';
import { quote, unnestOf } from './bulk.js';
import { writeOutboxPg } from './outbox.js';
import { boostOf, lockQueue } from './queue.js';
import { makeMoves, planMoves } from './reorder.js';
import { searchIds } from './search.js';
import { positionAtInsert, type Counted, type EntryRow, type PageArgs } from '../store.js';
import * as s from './schema.js';

type Db = NodePgDatabase<typeof s>;
type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type Conn = Db | Tx;

const BUCKET_SIZE = 1024; // the triggers' k >> 10

/**
 * Waiting entries in the buckets below bucket `b` (an SQL expression): the groups of 64 buckets below
 * b's group, plus the buckets of b's group below b (migrations/pg/0009_position_groups.sql).
 */
const below = (projectId: string | SQL, b: SQL) =>
  sql`((SELECT coalesce(sum(n), 0) FROM position_groups WHERE project_id = ${projectId} AND grp < ((${b}) >> 6))
    + (SELECT coalesce(sum(n), 0) FROM position_buckets WHERE project_id = ${projectId}
         AND bucket >= (((${b}) >> 6) << 6) AND bucket < (${b})))`;
/**
 * The exact position of the waiting entry (k, o) in bucket `b` whose keys start at `lo` (all SQL: plain
 * parameters, or columns of an outer row): the entries in the buckets below, plus those of its own
 * bucket before it, plus one. `x.k <= k` is implied by the row comparison but spelled out: the planner
 * cannot bound k from a row comparison, estimated ~200,000 rows for `k >= bucket start` and the
 * comparison together (82,518 per parallel worker), and at 1M entries counted with a parallel
 * sequential scan (130–250 ms) instead of the queue index.
 */
const positionAt = (projectId: string | SQL, b: SQL, lo: SQL, k: SQL, o: SQL) =>
  sql`(${below(projectId, b)}
    + (SELECT count(*) FROM entries x WHERE x.project_id = ${projectId} AND x.status = 'waiting' AND x.deleted_at IS NULL
         AND x.k >= ${lo} AND x.k <= ${k} AND (x.k, x.ordinal) < (${k}, ${o})) + 1)`;
/** The project's waiting total (a scalar subquery): the sum of its position groups. */
const waitingTotalOf = (projectId: string | SQL) =>
  sql`(SELECT coalesce(sum(n), 0) FROM position_groups g WHERE g.project_id = ${projectId})`;
const BULK_ROWS = 16; // more waiting rows than this (a list page of 20+, an export chunk): rank their buckets
const first = <T>(rows: T[]): T | undefined => rows[0];
const live = (projectId: string) => and(eq(s.entries.projectId, projectId), isNull(s.entries.deletedAt))!;
/**
 * A pending entry older than `before`: a joined one by its join time (created_at); an imported one (no
 * status token: it never joined here) by when it came to this server or was last sent a confirmation (a
 * re-join resends one), since its created_at is kept from the file and an old list would go at once.
 */
const pendingBefore = (before: number) =>
  sql`${s.entries.createdAt} < ${before} AND (${s.entries.statusTokenHash} IS NOT NULL OR greatest(${s.entries.updatedAt}, ${s.entries.confirmSentAt}) < ${before})`;

/**
 * Re-keys the project's referrers (k = ordinal - referralBoost * referrals) from the boost in its
 * settings row, inside the transaction that changes the setting (PgStore.updateProjectSettings), which
 * holds the queue's lock.
 */
export async function rekeyReferrersIn(tx: Conn, projectId: string): Promise<void> {
  await tx.execute(
    sql`UPDATE entries SET k = ordinal - ${boostOf(projectId)} * referrals WHERE project_id = ${projectId} AND referrals > 0`,
  );
}

/** Reserves `n` ordinals of the project inside `tx` (taking the queue lock); answers the first. */
export async function reserveOrdinalsIn(tx: Exec, projectId: string, n: number): Promise<number> {
  const r = await tx.execute<{ last: string }>(
    sql`INSERT INTO entry_ordinals(project_id, last) VALUES (${projectId}, ${n})
        ON CONFLICT (project_id) DO UPDATE SET last = entry_ordinals.last + EXCLUDED.last RETURNING last`,
  );
  return Number(r.rows[0]!.last) - n + 1;
}

/**
 * Ordinals count the entries created (LIFECYCLE.md: gaps only where entries were deleted), but a batch
 * (of joins or of an import) reserves one per row before its INSERT finds which rows are duplicates.
 * Numbers the `inserted` ones among `rows` (one project's, in the order they were numbered) again from
 * `first`, in the same order (k = ordinal: new rows have no referrals yet); answers the rows whose
 * ordinal changed, with the new one, and the project's last ordinal used. The caller writes both while
 * its transaction still holds the project's ordinal row, so nobody took any of these numbers.
 */
export function closeOrdinalGaps(rows: readonly EntryRow[], first: number, inserted: Set<string>) {
  let next = first;
  const moved: { id: string; ordinal: number }[] = [];
  for (const r of rows) {
    if (!inserted.has(r.id)) continue;
    if (r.ordinal !== next) moved.push({ id: r.id, ordinal: next });
    r.ordinal = next++;
    r.k = r.ordinal;
  }
  return { moved, last: next - 1 };
}

/** Adds `delta` counted referrals to a live referrer, moving its k by the project's boost (inside `tx`). */
export async function creditIn(tx: Conn, projectId: string, referrerId: string | null, delta: number, _boost?: number) {
  if (!referrerId) return;
  await tx.execute(
    sql`UPDATE entries SET referrals = greatest(0, referrals + ${delta}),
          k = ordinal - ${boostOf(projectId)} * greatest(0, referrals + ${delta})
        WHERE id = ${referrerId} AND project_id = ${projectId} AND deleted_at IS NULL`,
  );
}

/**
 * A join batch's INSERT of `rows` (append `tail`: ON CONFLICT, RETURNING) that resolves their `ref`s
 * in the statement itself: a row's referred_by is its own when set, else the live entry of its project
 * holding the referral code `refs[i]` (null: none; an unknown code leaves it null). No lookup round trip
 * before the batch, and the batch's referred and plain joins go out together.
 */
export function insertResolvingRefs(rows: readonly EntryRow[], refs: readonly (string | null)[], tail: SQL): SQL {
  const { names, unnest, given } = unnestOf(s.entries, rows);
  if (!given.includes('referred_by')) throw new TypeError('insertResolvingRefs: rows must give referredBy (null for none)');
  // The referrer must be live, but `deleted_at IS NULL` is tested in the SELECT list, not in the join:
  // in the join it lets the planner use any partial index on live entries that starts with project_id
  // (the queue index, say) and filter every entry of the project by code. It did, with a new table's
  // missing statistics, and a batch of 64 referred joins took 50 ms. Without it only the unique
  // (project_id, referral_code) index matches, whatever the statistics.
  const select = sql.raw(
    given
      .map((n) => (n === 'referred_by' ? 'coalesce(u.referred_by, CASE WHEN r.deleted_at IS NULL THEN r.id END)' : `u.${quote(n)}`))
      .join(', '),
  );
  return sql`INSERT INTO entries (${names}) SELECT ${select}
    FROM unnest(${unnest}, ${sql.param(refs)}::text[]) AS u(${names}, ref)
    LEFT JOIN entries r ON r.project_id = u.project_id AND r.referral_code = u.ref ${tail}`;
}

/**
 * A join batch's INSERT with the referral credits of its rows, in one statement: `insert` is an INSERT
 * INTO entries … RETURNING id, project_id, referred_by, status, and the statement answers the ids it
 * inserted and their referrers. Each row that enters the queue as waiting with a referrer credits that
 * referrer, who is always an earlier, committed entry (resolved by the INSERT from the statement's
 * snapshot). Credits to the same
 * referrer are summed, rows are locked in id order, and the queue's statement trigger runs once for all
 * of them. One round trip instead of two: a batch with any referred join used to send the credits as a
 * statement of their own. The caller holds the projects' queue locks.
 *
 * The referrers are found by primary key. Their liveness is tested as `coalesce(deleted_at, 0) = 0`
 * on purpose: `deleted_at IS NULL` would let the planner pick a partial index on live entries that
 * starts with project_id and filter the project's entries by id, which it did while a new table had no
 * statistics (see insertResolvingRefs).
 */
export function insertCrediting(insert: SQL): SQL {
  return sql`WITH ins AS (${insert}),
      c AS (
        SELECT project_id, referred_by AS id, count(*)::int AS n FROM ins
        WHERE status = 'waiting' AND referred_by IS NOT NULL GROUP BY project_id, referred_by),
      locked AS MATERIALIZED (
        SELECT e.id, c.n, c.project_id FROM entries e JOIN c ON e.id = c.id
        WHERE e.project_id = c.project_id AND coalesce(e.deleted_at, 0) = 0 ORDER BY e.id FOR UPDATE OF e),
      credited AS (
        UPDATE entries e SET referrals = greatest(0, e.referrals + l.n),
          k = e.ordinal - coalesce((p.settings::jsonb->>'referralBoost')::bigint, 0) * greatest(0, e.referrals + l.n)
        FROM locked l JOIN projects p ON p.id = l.project_id
        WHERE e.id = l.id AND e.deleted_at IS NULL)
    SELECT id, referred_by FROM ins`;
}

/**
 * The status read as a named statement: one statement, one snapshot (the row found by its token, its
 * position by positionAt on the row's own columns, and the waiting total). Its only parameter is the
 * token hash, so after five runs on a connection PostgreSQL keeps a generic plan: unnamed, planning the
 * four subqueries took ~1.4 ms of a ~2.4 ms statement at 1M entries; named, ~0.3 ms in all (psql
 * PREPARE/EXECUTE, 2026-11-26). The outer row is named in full (entries.k): drizzle writes its columns
 * unqualified here, and inside the subqueries an unqualified k or project_id would be the subquery's own.
 */
function statusStatement(db: Db) {
  const e = s.entries;
  const bucket = sql`(entries.k >> 10)`; // = floor(k / BUCKET_SIZE), negative k included
  return db
    .select({
      ...getTableColumns(e),
      position: sql<string | null>`CASE WHEN entries.status = 'waiting'
          THEN ${positionAt(sql`entries.project_id`, bucket, sql`${bucket} * ${BUCKET_SIZE}`, sql`entries.k`, sql`entries.ordinal`)} END`,
      total: sql<string>`${waitingTotalOf(sql`entries.project_id`)}`,
    })
    .from(e)
    .where(and(eq(e.statusTokenHash, sql.placeholder('hash')), isNull(e.deletedAt))!)
    .limit(1)
    .prepare('wl_status_by_token');
}

/** A page of the waiting queue in queue order and the waiting total (PgLifecycle.waitingPage). */
function waitingPageStatement(db: Db) {
  const e = s.entries;
  return db
    .select({
      ...getTableColumns(e),
      total: sql<string>`${waitingTotalOf(sql`${sql.placeholder('projectId')}`)}`,
    })
    .from(e)
    .where(and(eq(e.projectId, sql.placeholder('projectId')), isNull(e.deletedAt), eq(e.status, 'waiting'))!)
    .orderBy(asc(e.k), asc(e.ordinal))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare('wl_waiting_page');
}

const counts = (r: EntryRow) => r.referredBy !== null && r.deletedAt === null && r.status !== 'pending';

export class PgLifecycle implements LifecycleStore {
  private readonly statusStmt: ReturnType<typeof statusStatement>;
  private readonly waitingPageStmt: ReturnType<typeof waitingPageStatement>;

  constructor(
    private readonly db: Db,
    /** Wakes the outbox dispatcher after a commit that wrote to the outbox. */
    private readonly outboxWritten: () => void = () => {},
  ) {
    this.statusStmt = statusStatement(db);
    this.waitingPageStmt = waitingPageStatement(db);
  }

  /** Writes a change's outbox rows inside `tx`; true when anything was written. */
  private async out<T>(tx: Tx, outbox: OutboxOf<T> | undefined, changed: T): Promise<boolean> {
    return outbox ? writeOutboxPg(tx, outbox(changed)) : false;
  }
  private wake(wrote: boolean) {
    if (wrote) this.outboxWritten();
  }

  private async one(where: SQL, conn: Conn = this.db) {
    return first(await conn.select().from(s.entries).where(where).limit(1)) as EntryRow | undefined;
  }

  async entryByStatusToken(hash: string) {
    return this.one(and(eq(s.entries.statusTokenHash, hash), isNull(s.entries.deletedAt))!);
  }
  async statusByToken(hash: string) {
    const found = first(await this.statusStmt.execute({ hash }));
    if (!found) return undefined;
    const { position, total, ...row } = found;
    return { row: row as EntryRow, position: position === null ? null : Number(position), total: Number(total) };
  }
  async entryByConfirmToken(hash: string) {
    return this.one(and(eq(s.entries.confirmTokenHash, hash), isNull(s.entries.deletedAt))!);
  }
  async entryByInviteCode(projectId: string, hash: string) {
    return this.one(and(live(projectId), eq(s.entries.inviteCodeHash, hash))!);
  }
  async entryByEmail(projectId: string, emailNorm: string) {
    return this.one(and(live(projectId), eq(s.entries.emailNorm, emailNorm))!);
  }

  // Its bounds are plain parameters: the planner sees the real range of keys.
  private async positionOf(conn: Conn, projectId: string, k: number, ordinal: number) {
    const bucket = Math.floor(k / BUCKET_SIZE);
    const r = await conn.execute<{ pos: string }>(
      sql`SELECT ${positionAt(projectId, sql`${bucket}::bigint`, sql`${bucket * BUCKET_SIZE}::bigint`, sql`${k}::bigint`, sql`${ordinal}::bigint`)} AS pos`,
    );
    return Number(r.rows[0]!.pos);
  }

  async positions(projectId: string, rows: readonly Pick<EntryRow, 'id' | 'status' | 'k' | 'ordinal'>[]) {
    const out = new Map<string, number>();
    const waiting = rows.filter((r) => r.status === 'waiting');
    if (waiting.length === 0) return out;
    if (waiting.length === 1) {
      const r = waiting[0]!;
      out.set(r.id, await this.positionOf(this.db, projectId, r.k, r.ordinal));
      return out;
    }
    if (waiting.length > BULK_ROWS) return this.bulkPositions(projectId, waiting, out);
    // A whole page in one statement (one snapshot, one round trip): the same count per row.
    const res = await this.db.execute<{ id: string; pos: string }>(sql`SELECT v.id,
        ${positionAt(projectId, sql`v.b`, sql`v.b * ${BUCKET_SIZE}`, sql`v.k`, sql`v.o`)} AS pos
      FROM unnest(${sql.param(waiting.map((r) => r.id))}::text[], ${sql.param(waiting.map((r) => r.k))}::bigint[],
        ${sql.param(waiting.map((r) => r.ordinal))}::bigint[], ${sql.param(waiting.map((r) => Math.floor(r.k / BUCKET_SIZE)))}::bigint[])
        AS v(id, k, o, b)`);
    for (const r of res.rows) out.set(r.id, Number(r.pos));
    return out;
  }

  /**
   * Many rows (an export chunk): each bucket they fall in is ranked once, instead of one count of up to
   * 1024 keys per row. Position = waiting entries in the buckets below + rank in the bucket by (k, ordinal).
   */
  private async bulkPositions(projectId: string, rows: readonly Pick<EntryRow, 'id' | 'k' | 'ordinal'>[], out: Map<string, number>) {
    const buckets = [...new Set(rows.map((r) => Math.floor(r.k / BUCKET_SIZE)))];
    // One part per bucket with its bounds as plain parameters: the planner sees the real range (a few
    // hundred rows, an index range scan) instead of guessing 10% of the table and compiling with JIT.
    const parts = buckets.map(
      (b) => sql`(SELECT id, ${below(projectId, sql`${b}::bigint`)}
          + row_number() OVER (ORDER BY k, ordinal) AS pos
        FROM entries WHERE project_id = ${projectId} AND status = 'waiting' AND deleted_at IS NULL
          AND k >= ${b * BUCKET_SIZE} AND k < ${(b + 1) * BUCKET_SIZE})`,
    );
    const res = await this.db.execute<{ id: string; pos: string }>(
      sql`SELECT id, pos FROM (${sql.join(parts, sql` UNION ALL `)}) AS r WHERE id = ANY(${sql.param(rows.map((r) => r.id))}::text[])`,
    );
    for (const r of res.rows) out.set(r.id, Number(r.pos));
    return out;
  }

  async waitingTotal(projectId: string, conn: Conn = this.db) {
    const r = await conn.execute<{ n: string }>(sql`SELECT ${waitingTotalOf(projectId)} AS n`);
    return Number(r.rows[0]!.n);
  }

  async queuePage(projectId: string, q: QueueQuery, page: PageArgs): Promise<Counted<EntryRow> & { positions?: Map<string, number> }> {
    if (q.sort === 'position' && q.status && q.status !== 'waiting') return { rows: [], total: 0 };
    const status = q.sort === 'position' ? 'waiting' : q.status;
    // Queue order only when asked for (`sort=position`): `status=waiting` alone lists newest first, as every list does.
    if (q.sort === 'position' && !q.search) return this.waitingPage(projectId, page);
    const parts: SQL[] = [live(projectId)];
    if (status) parts.push(eq(s.entries.status, status));
    if (q.search) parts.push(sql`${s.entries.id} IN (${searchIds(projectId, q.search)})`);
    const where = and(...parts)!;
    const order = q.sort === 'position' ? [asc(s.entries.k), asc(s.entries.ordinal)] : [desc(s.entries.id)];
    return this.db.transaction(
      async (tx) => {
        // The waiting queue in queue order took waitingPage above; the waiting list newest first counts
        // from the queue's trigger-kept totals, like waitingPage, and any other filter counts its rows.
        const total =
          status === 'waiting' && !q.search
            ? await this.waitingTotal(projectId, tx)
            : (first(await tx.select({ n: count() }).from(s.entries).where(where))?.n ?? 0);
        if (page.offset >= total) return { rows: [], total };
        const rows = await tx
          .select()
          .from(s.entries)
          .where(where)
          .orderBy(...order)
          .limit(page.limit)
          .offset(page.offset);
        // Positions are not the page's order here (a search skips part of the queue): the caller asks.
        return { rows: rows as EntryRow[], total };
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
  }

  /**
   * A page of the waiting queue in queue order, with the waiting total read in the same statement (one
   * snapshot, one round trip, no transaction) as a named statement. Before: BEGIN, the total, the page
   * and COMMIT, four round trips and two plannings. A page past the end has no row to carry the total,
   * which is then read on its own.
   */
  private async waitingPage(projectId: string, page: PageArgs): Promise<Counted<EntryRow> & { positions?: Map<string, number> }> {
    const rows = await this.waitingPageStmt.execute({ projectId, limit: page.limit, offset: page.offset });
    if (rows.length === 0) return { rows: [], total: await this.waitingTotal(projectId) };
    const total = Number(rows[0]!.total);
    const entries = rows.map(({ total: _, ...row }) => row as EntryRow);
    return { rows: entries, total, positions: new Map(entries.map((r, i) => [r.id, page.offset + i + 1])) };
  }

  async queueKeys(projectId: string, after: readonly [number, number] | null, limit: number) {
    const from = after ? sql`AND k >= ${after[0]} AND (k, ordinal) > (${after[0]}::bigint, ${after[1]}::bigint)` : sql``;
    const r = await this.db.execute<{ k: string; ordinal: string }>(
      sql`SELECT k, ordinal FROM entries WHERE project_id = ${projectId} AND status = 'waiting' AND deleted_at IS NULL ${from}
        ORDER BY k, ordinal LIMIT ${limit}`,
    );
    return r.rows.map((x): [number, number] => [Number(x.k), Number(x.ordinal)]);
  }

  async statusCounts(projectId: string): Promise<StatusCounts> {
    const [byStatus, referred] = await Promise.all([
      this.db.select({ status: s.entries.status, n: count() }).from(s.entries).where(live(projectId)).groupBy(s.entries.status),
      this.db
        .select({ n: count() })
        .from(s.entries)
        .where(and(live(projectId), sql`${s.entries.referredBy} IS NOT NULL`)),
    ]);
    const out: StatusCounts = { pending: 0, waiting: 0, invited: 0, accepted: 0, referred: first(referred)?.n ?? 0 };
    for (const r of byStatus) if (r.status in out) out[r.status] = r.n;
    return out;
  }

  async leaderboard(projectId: string, limit: number) {
    const rows = await this.db
      .select()
      .from(s.entries)
      .where(and(live(projectId), sql`${s.entries.referrals} > 0`))
      .orderBy(desc(s.entries.referrals), asc(s.entries.ordinal))
      .limit(limit);
    return rows as EntryRow[];
  }

  private byId = (projectId: string, entryId: string) => and(live(projectId), eq(s.entries.id, entryId))!;

  async confirm(projectId: string, entryId: string, now: number, _boost: number, outbox?: OutboxOf<EntryRow>) {
    let wrote = false;
    const row = await this.db.transaction(async (tx) => {
      await lockQueue(tx, projectId);
      const r = await this.one(this.byId(projectId, entryId), tx);
      if (!r || r.status !== 'pending') return r;
      const [u] = await tx
        .update(s.entries)
        .set({ status: 'waiting', confirmedAt: now, updatedAt: now })
        .where(eq(s.entries.id, entryId))
        .returning();
      await creditIn(tx, projectId, r.referredBy, 1);
      // entry.confirmed carries the entry's place in the queue as of this commit (the queue is locked).
      if (outbox) positionAtInsert.set(u as EntryRow, await this.positionOf(tx, projectId, u!.k, u!.ordinal));
      wrote = await this.out(tx, outbox, u as EntryRow);
      return u as EntryRow;
    });
    this.wake(wrote);
    return row;
  }

  async setConfirmToken(entryId: string, hash: string, now: number, resentBefore: number | null, outbox?: OutboxWrites) {
    let set = false;
    const wrote = await this.db.transaction(async (tx) => {
      // A concurrent resend of the same row waits for this one's row lock, then finds the condition false.
      const r = await tx
        .update(s.entries)
        .set(
          resentBefore !== null
            ? { confirmTokenHash: hash, confirmSentAt: now, confirmResentAt: now }
            : { confirmTokenHash: hash, confirmSentAt: now },
        )
        .where(
          and(
            eq(s.entries.id, entryId),
            eq(s.entries.status, 'pending'),
            isNull(s.entries.deletedAt),
            resentBefore !== null ? or(isNull(s.entries.confirmResentAt), lte(s.entries.confirmResentAt, resentBefore)) : undefined,
          ),
        )
        .returning({ id: s.entries.id });
      set = r.length === 1;
      return set && (await writeOutboxPg(tx, outbox));
    });
    this.wake(wrote);
    return set;
  }

  async softDelete(projectId: string, entryId: string, now: number, _boost: number, outbox?: OutboxOf<EntryRow>) {
    let wrote = false;
    const row = await this.db.transaction(async (tx) => {
      await lockQueue(tx, projectId);
      const r = await this.one(this.byId(projectId, entryId), tx);
      if (!r) return undefined;
      await tx.update(s.entries).set({ deletedAt: now, updatedAt: now }).where(eq(s.entries.id, entryId));
      if (counts(r)) await creditIn(tx, projectId, r.referredBy, -1);
      const after = { ...r, deletedAt: now, updatedAt: now };
      wrote = await this.out(tx, outbox, after);
      return after;
    });
    this.wake(wrote);
    return row;
  }

  async erase(projectId: string, entryId: string, _boost: number, outbox?: OutboxOf<EntryRow>) {
    let wrote = false;
    const done = await this.db.transaction(async (tx) => {
      await lockQueue(tx, projectId);
      const r = await this.one(this.byId(projectId, entryId), tx);
      if (!r) return false;
      await tx.delete(s.entries).where(eq(s.entries.id, entryId));
      if (counts(r)) await creditIn(tx, projectId, r.referredBy, -1);
      // Erasure reaches the outbox too: the entry's own earlier events keep only its id (not those of
      // entries it referred, which name it in referredBy); emails to it or about it (a sign-up notice
      // carries its address and name) are dropped.
      await tx.execute(sql`UPDATE events SET payload = json_build_object('type', type, 'timestamp', payload::json->>'timestamp',
          'projectId', project_id, 'data', json_build_object('entryId', ${r.id}::text))::text
        WHERE project_id = ${projectId} AND strpos(payload, ${`"${r.id}"`}) > 0 AND payload::json->'data'->>'entryId' = ${r.id}`);
      await tx.execute(sql`UPDATE deliveries SET recipient = NULL, data = NULL, last_error = 'recipient erased',
          status = CASE WHEN status = 'pending' THEN 'failed' ELSE status END
        WHERE project_id = ${projectId} AND kind = 'email' AND (recipient = ${r.email} OR strpos(data, ${JSON.stringify(r.email)}) > 0)`);
      wrote = await this.out(tx, outbox, r);
      return true;
    });
    this.wake(wrote);
    return done;
  }

  async invite(projectId: string, { sel, codeHash, now, expiresAt, dryRun = false, outbox }: InviteBatch) {
    let wrote = false;
    const result = await this.db.transaction(async (tx) => {
      if (!dryRun) await lockQueue(tx, projectId);
      let rows: EntryRow[];
      const missing: string[] = [];
      const notEligible: string[] = [];
      if ('count' in sel) {
        rows = (await tx
          .select()
          .from(s.entries)
          .where(and(live(projectId), eq(s.entries.status, 'waiting')))
          .orderBy(asc(s.entries.k), asc(s.entries.ordinal))
          .limit(sel.count)) as EntryRow[];
      } else {
        const ids = [...new Set(sel.entryIds)];
        // Locked as read (not in a dry run): a redeem of an entry's old code commits before this reads it
        // (it is then accepted: not eligible) or waits for this batch (its code is then the new one, and
        // the old one is unknown). Read unlocked, a re-invite wrote an accepted entry back to invited.
        const query = tx
          .select()
          .from(s.entries)
          .where(and(live(projectId), sql`${s.entries.id} = ANY(${sql.param(ids)})`));
        const found = (await (dryRun ? query : query.for('update'))) as EntryRow[];
        const byId = new Map(found.map((r) => [r.id, r]));
        rows = [];
        for (const id of ids) {
          const r = byId.get(id);
          if (!r) missing.push(id);
          else if (r.status !== 'waiting' && r.status !== 'invited') notEligible.push(id);
          else rows.push(r);
        }
      }
      if (dryRun || missing.length || notEligible.length || rows.length === 0) return { rows, missing, notEligible };
      const hashes = rows.map((r) => codeHash(r.id));
      // One statement for the whole batch (10,000 single-row updates would be 10,000 round trips).
      await tx.execute(sql`UPDATE entries e SET status = 'invited', invited_at = ${now}, invite_code_hash = v.h,
          invite_expires_at = ${expiresAt}, updated_at = ${now}
        FROM (SELECT unnest(${sql.param(rows.map((r) => r.id))}::text[]) AS id, unnest(${sql.param(hashes)}::text[]) AS h) v
        WHERE e.id = v.id`);
      const out = rows.map((r, i) => ({
        ...r,
        status: 'invited' as const,
        invitedAt: now,
        inviteCodeHash: hashes[i]!,
        inviteExpiresAt: expiresAt,
        updatedAt: now,
      }));
      wrote = await this.out(tx, outbox, out);
      return { rows: out, missing, notEligible };
    });
    this.wake(wrote);
    return result;
  }

  async redeem(projectId: string, hash: string, now: number, outbox?: OutboxOf<EntryRow>): Promise<RedeemOutcome> {
    // The conditional UPDATE settles concurrent redeems: the loser re-reads the row as accepted.
    let wrote = false;
    const won = await this.db.transaction(async (tx) => {
      const [w] = await tx
        .update(s.entries)
        .set({ status: 'accepted', acceptedAt: now, updatedAt: now })
        .where(
          and(
            live(projectId),
            eq(s.entries.inviteCodeHash, hash),
            eq(s.entries.status, 'invited'),
            // No expiry (a row invited before expiries were stored) never expires, as on SQLite and in the check route.
            sql`(${s.entries.inviteExpiresAt} IS NULL OR ${s.entries.inviteExpiresAt} > ${now})`,
          ),
        )
        .returning();
      if (w) wrote = await this.out(tx, outbox, w as EntryRow);
      return w;
    });
    this.wake(wrote);
    if (won) return { result: 'accepted', row: won as EntryRow };
    const r = await this.entryByInviteCode(projectId, hash);
    if (!r || (r.status !== 'invited' && r.status !== 'accepted')) return { result: 'unknown' };
    return { result: r.status === 'accepted' ? 'used' : 'expired', row: r };
  }

  /** Puts an import's rows in date order: planned, then moved in short transactions (reorder.ts). */
  async orderImported(projectId: string, ranges: readonly (readonly [number, number])[]) {
    if (!ranges.length) return 0;
    const { planId, moves } = await planMoves(this.db, projectId, ranges);
    return moves ? makeMoves(this.db, planId, projectId) : 0;
  }

  async purgePending(projectId: string, before: number) {
    return this.db.transaction(async (tx) => {
      await lockQueue(tx, projectId);
      const r = await tx
        .delete(s.entries)
        .where(and(live(projectId), eq(s.entries.status, 'pending'), pendingBefore(before)))
        .returning({ id: s.entries.id, email: s.entries.email });
      if (r.length) {
        // As an erasure does: their events keep only their id, their emails (the confirmation) lose
        // address and content; nothing of them waits 30 days for the outbox prune.
        const ids = r.map((x) => x.id);
        await tx.execute(sql`UPDATE events SET payload = json_build_object('type', type, 'timestamp', payload::json->>'timestamp',
            'projectId', project_id, 'data', json_build_object('entryId', payload::json->'data'->>'entryId'))::text
          WHERE project_id = ${projectId} AND payload::json->'data'->>'entryId' = ANY(${sql.param(ids)}::text[])`);
        await tx.execute(sql`UPDATE deliveries SET recipient = NULL, data = NULL, last_error = 'recipient erased',
            status = CASE WHEN status = 'pending' THEN 'failed' ELSE status END
          WHERE project_id = ${projectId} AND kind = 'email' AND recipient = ANY(${sql.param(r.map((x) => x.email))}::text[])`);
      }
      return r.length;
    });
  }

  async projectsWithPending(before: number) {
    const r = await this.db
      .selectDistinct({ p: s.entries.projectId })
      .from(s.entries)
      .where(and(eq(s.entries.status, 'pending'), isNull(s.entries.deletedAt), pendingBefore(before)));
    return r.map((x) => x.p);
  }

  async reserveOrdinals(projectId: string, n: number) {
    return reserveOrdinalsIn(this.db, projectId, n);
  }
}
