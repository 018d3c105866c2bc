import { and, asc, count, desc, eq, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { liveKey, liveKeys } from '../conditions.js';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { DatabaseUnavailableError } from '../errors.js';
import {
  type Counted,
  type EntryRow,
  EXPORTED_COLUMNS,
  toExported,
  type InsertEntryResult,
  type KeyRow,
  type LimiterOptions,
  mergedSettings,
  type PageArgs,
  type ProjectRow,
  type ProjectSettingsPatch,
  type SessionRow,
  type StatsRows,
  type Store,
  type UserRow,
} from '../store.js';
import { Batcher } from '../batcher.js';
import { type PendingJoin, SubscriberGuesses, writeJoins } from './join-batch.js';
import { PgLifecycle, rekeyReferrersIn } from './lifecycle.js';
import { lockQueue } from './queue.js';
import type { OutboxWrites } from '../outbox.js';
import { arrayRows, inTransaction, named } from './named.js';
import { PgEventStore, writeOutboxPg } from './outbox.js';
import { finishPlannedMoves } from './reorder.js';
import { searchIds } from './search.js';
import * as s from './schema.js';
import { PgSurface } from './surface.js';
import { CatalogCache } from './catalog-cache.js';
import { guardUnavailable, SUB_STORES } from '../guard.js';
import { PG_DEFAULTS, PG_IDLE_KEPT, QUERY_TIMEOUT_SLACK_MS, type PgOptions } from '../pg-options.js';
import { pgUnavailable } from './unavailable.js';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/pg', import.meta.url));
// Any constant shared by every instance: serialises concurrent migrations on a fresh database.
const MIGRATION_LOCK = 727_274_001;
const FIRST_USER_LOCK = 727_274_002;
const DAY_MS = 86_400_000;
const MAX_BATCH = 500;

/** Connects, applies pending migrations under an advisory lock, returns the Store. */
export async function openPgStore(url: string, options: Partial<PgOptions> = {}): Promise<Store> {
  const o = { ...PG_DEFAULTS, ...options };
  // Migrations run on their own connection without statement_timeout: waiting for another instance's
  // migration lock, or building an index on a large table, may rightly take longer than any request.
  const migrator = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: o.connectTimeoutMs,
    application_name: 'waitlist-migrate',
  });
  try {
    await migrator.connect();
    await migrator.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migrate(drizzle(migrator), { migrationsFolder: MIGRATIONS });
      // An import's reorder cut short by a crash (reorder.ts): finished before this server serves.
      await finishPlannedMoves(drizzle(migrator));
    } finally {
      await migrator.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } catch (err) {
    throw pgUnavailable(err) ?? err;
  } finally {
    await migrator.end().catch(() => undefined);
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: o.poolSize,
    // Two connections stay open when the server is idle (the rest close after pg's 10 s): a new
    // PostgreSQL backend runs its first queries cold (its catalog caches, its first touch of the
    // shared buffers), and a dashboard clicked every few seconds met one on almost every request.
    min: Math.min(PG_IDLE_KEPT, o.poolSize),
    connectionTimeoutMillis: o.connectTimeoutMs, // connecting, and waiting for a free connection
    statement_timeout: o.statementTimeoutMs,
    query_timeout: o.statementTimeoutMs + QUERY_TIMEOUT_SLACK_MS,
    keepAlive: true,
    application_name: 'waitlist',
  });
  const logPoolError = (err: Error) => console.error('PostgreSQL pool error:', pgUnavailable(err)?.message ?? err.message);
  pool.on('error', logPoolError);
  // The pool listens for errors only on idle clients: one checked out for a transaction (a join batch, an
  // invite batch) that loses its server between two queries would emit an unhandled 'error' and end the
  // process. Every client gets a listener of its own; the query in flight still fails and answers 503.
  pool.on('connect', (client) => client.on('error', logPoolError));
  return guardUnavailable<Store>(new PgStore(pool, drizzle(pool, { schema: s })), pgUnavailable, SUB_STORES);
}

/** The export's columns (ExportedEntry), read as arrays. */
const EXPORT_COLS = sql.raw(EXPORTED_COLUMNS.join(', '));
const first = <T>(rows: T[]): T | undefined => rows[0];

class PgStore implements Store {
  readonly dialect = 'pg' as const;
  // A batch failing because the database is down fails whole (retrying row by row would wait out the
  // connection timeout once per row); any other failure is retried row by row.
  private readonly joins = new Batcher<PendingJoin, InsertEntryResult>((batch) => this.insertBatch(batch), {
    maxBatch: MAX_BATCH,
    fatal: pgUnavailable,
    overlap: true,
  });
  private readonly sweeper: NodeJS.Timeout;
  private readonly surface: PgSurface;
  readonly lifecycle: PgLifecycle;
  readonly events: PgEventStore;
  private outboxListeners: (() => void)[] = [];
  private readonly catalog: CatalogCache;
  /** Each project's webhook subscribers as its last join batch read them (join-batch.ts). */
  private readonly guesses = new SubscriberGuesses();

  constructor(
    private readonly pool: pg.Pool,
    private readonly db: NodePgDatabase<typeof s>,
  ) {
    this.lifecycle = new PgLifecycle(db, () => this.outboxWritten());
    this.events = new PgEventStore(db, () => this.outboxWritten(), named(pool));
    // Expired rate-limit rows are swept here (the library's own sweeper timer would hold the process open),
    // every minute: clients from many addresses (a /64 each, say) leave a row apiece, which an hourly
    // sweep of rows an hour past their expiry let pile up to hundreds of MB under a flood.
    this.sweeper = setInterval(() => void this.sweepRateLimits().catch(() => undefined), 60_000);
    this.sweeper.unref();
    this.surface = new PgSurface(db);
    this.catalog = new CatalogCache(async () => {
      const r = await this.pool.query<{ v: string }>('SELECT v FROM catalog_version WHERE id = 1');
      return r.rows[0]?.v ?? '';
    });
  }

  // ---- sign-up surface ----
  serverSecret(name: string, make: () => string) {
    return this.surface.serverSecret(name, make);
  }
  useCaptchaSolution(signature: string, expiresAt: number, now: number) {
    return this.surface.useCaptchaSolution(signature, expiresAt, now);
  }
  liveEmailNorms(projectId: string, norms: string[]) {
    return this.surface.liveEmailNorms(projectId, norms);
  }
  importEntries(rows: EntryRow[]) {
    return this.surface.importEntries(rows);
  }

  rateLimiter(opts: LimiterOptions) {
    const limiter = new RateLimiterPostgres({
      ...opts,
      storeClient: this.pool,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout: false,
    });
    // Its queries go straight to the pool: classify their failures too (a RateLimiterRes passes through).
    return guardUnavailable(limiter, pgUnavailable);
  }

  /** Readiness: a round trip to a primary that takes writes (not a standby left behind by a failover,
   * nor a database switched to read-only, as some hosted services do when the disk fills). */
  async ping() {
    const r = await this.pool.query<{ standby: boolean; ro: string }>(
      "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS ro",
    );
    if (r.rows[0]?.standby) throw new DatabaseUnavailableError('the database is a read-only standby', 2);
    if (r.rows[0]?.ro === 'on') throw new DatabaseUnavailableError('the database is read-only', 2);
  }

  // ---- users ----
  async countUsers() {
    return first(await this.db.select({ n: count() }).from(s.users))?.n ?? 0;
  }
  async insertUser(row: UserRow) {
    const r = await this.db.insert(s.users).values(row).onConflictDoNothing().returning({ id: s.users.id });
    return r.length === 1 ? ('inserted' as const) : ('duplicate' as const);
  }
  async insertFirstUser(row: UserRow) {
    // The transaction-scoped advisory lock serialises first sign-ups across every instance.
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${FIRST_USER_LOCK})`);
      if (first(await tx.select({ n: count() }).from(s.users))?.n) return 'closed' as const;
      await tx.insert(s.users).values(row);
      return 'inserted' as const;
    });
  }
  async userByEmail(emailNorm: string) {
    return first(await this.db.select().from(s.users).where(eq(s.users.emailNorm, emailNorm)));
  }
  async userById(id: string) {
    return first(await this.db.select().from(s.users).where(eq(s.users.id, id)));
  }
  async setUserPassword(id: string, passwordHash: string, now: number) {
    const r = await this.db.update(s.users).set({ passwordHash, updatedAt: now }).where(eq(s.users.id, id)).returning({ id: s.users.id });
    return r.length === 1;
  }

  // ---- sessions ----
  async insertSession(row: SessionRow) {
    await this.db.insert(s.sessions).values(row);
  }
  async sessionByHash(tokenHash: string, now: number) {
    return first(
      await this.db
        .select({ session: s.sessions, user: s.users })
        .from(s.sessions)
        .innerJoin(s.users, eq(s.users.id, s.sessions.userId))
        .where(and(eq(s.sessions.tokenHash, tokenHash), sql`${s.sessions.expiresAt} > ${now}`)),
    );
  }
  async extendSession(tokenHash: string, expiresAt: number) {
    await this.db.update(s.sessions).set({ expiresAt }).where(eq(s.sessions.tokenHash, tokenHash));
  }
  async deleteSession(tokenHash: string) {
    await this.db.delete(s.sessions).where(eq(s.sessions.tokenHash, tokenHash));
  }
  async deleteUserSessions(userId: string) {
    await this.db.delete(s.sessions).where(eq(s.sessions.userId, userId));
  }

  // ---- projects ----
  async insertProject(row: ProjectRow) {
    const r = await this.db.insert(s.projects).values(row).onConflictDoNothing().returning({ id: s.projects.id });
    return r.length === 1 ? ('inserted' as const) : ('duplicate' as const);
  }
  async listProjects(userId: string, page: PageArgs): Promise<Counted<ProjectRow>> {
    const where = and(eq(s.projects.userId, userId), isNull(s.projects.deletedAt));
    return this.paged(s.projects, where, desc(s.projects.id), page);
  }
  async projectForUser(userId: string, idOrSlug: string) {
    return first(
      await this.db
        .select()
        .from(s.projects)
        .where(
          and(eq(s.projects.userId, userId), isNull(s.projects.deletedAt), or(eq(s.projects.id, idOrSlug), eq(s.projects.slug, idOrSlug))),
        ),
    );
  }
  async projectBySlug(slug: string) {
    return this.catalog.get('slug', slug, () => this.readProjectBySlug(slug));
  }
  private async readProjectBySlug(slug: string) {
    return first(
      await this.db
        .select()
        .from(s.projects)
        .where(and(eq(s.projects.slug, slug), isNull(s.projects.deletedAt))),
    );
  }
  async projectByIdAny(id: string) {
    return first(await this.db.select().from(s.projects).where(eq(s.projects.id, id)));
  }
  async renameProject(id: string, name: string, now: number) {
    return first(
      await this.db
        .update(s.projects)
        .set({ name, updatedAt: now })
        .where(and(eq(s.projects.id, id), isNull(s.projects.deletedAt)))
        .returning(),
    );
  }
  async softDeleteProject(id: string, now: number) {
    return first(
      await this.db
        .update(s.projects)
        .set({ deletedAt: now })
        .where(and(eq(s.projects.id, id), isNull(s.projects.deletedAt)))
        .returning(),
    );
  }
  async restoreProject(id: string, now: number) {
    return first(await this.db.update(s.projects).set({ deletedAt: null, updatedAt: now }).where(eq(s.projects.id, id)).returning());
  }

  async updateProjectSettings(id: string, { features, ...columns }: ProjectSettingsPatch, rekeyReferrers = false) {
    const live = and(eq(s.projects.id, id), isNull(s.projects.deletedAt));
    if (!features && !rekeyReferrers) return first(await this.db.update(s.projects).set(columns).where(live).returning());
    // One transaction. The settings JSON is read under the row's lock and written with the fields given
    // set over it, so concurrent PUTs of different fields all land. A boost re-keys the referrers under
    // the queue's lock (taken first, as joins take it): a crash between the boost and the re-keying
    // would leave the queue ordered by the old boost for good (a retry of the same PUT saw no change).
    return this.db.transaction(async (tx) => {
      if (rekeyReferrers) await lockQueue(tx, id);
      const set: Partial<ProjectRow> = { ...columns };
      if (features) {
        const current = first(await tx.select({ settings: s.projects.settings }).from(s.projects).where(live).for('update'));
        if (!current) return undefined;
        set.settings = mergedSettings(current.settings, features);
      }
      const row = first(await tx.update(s.projects).set(set).where(live).returning());
      if (row && rekeyReferrers) await rekeyReferrersIn(tx, id);
      return row;
    });
  }

  /**
   * Deletes the rate-limit rows that have expired: such a row counts for nothing (the limiter starts a
   * client's count again), and one being renewed at the same moment is not deleted (the DELETE re-checks
   * its expiry once the renewing UPDATE has committed). Answers how many went.
   */
  async sweepRateLimits(now = Date.now()): Promise<number> {
    const r = await this.db.delete(s.rateLimits).where(sql`${s.rateLimits.expire} < ${now}`);
    return r.rowCount ?? 0;
  }

  // ---- api keys ----
  async insertKey(row: KeyRow) {
    await this.db.insert(s.apiKeys).values(row);
  }
  async listKeys(projectId: string, page: PageArgs): Promise<Counted<KeyRow>> {
    return this.paged(s.apiKeys, liveKeys(s.apiKeys, projectId), desc(s.apiKeys.id), page);
  }
  private liveKey(projectId: string, keyId: string) {
    return liveKey(s.apiKeys, projectId, keyId);
  }
  async keyInProject(projectId: string, keyId: string) {
    return first(await this.db.select().from(s.apiKeys).where(this.liveKey(projectId, keyId)));
  }
  async renameKey(projectId: string, keyId: string, name: string, now: number) {
    return first(await this.db.update(s.apiKeys).set({ name, updatedAt: now }).where(this.liveKey(projectId, keyId)).returning());
  }
  async revokeKey(projectId: string, keyId: string, now: number) {
    return first(await this.db.update(s.apiKeys).set({ revokedAt: now, updatedAt: now }).where(this.liveKey(projectId, keyId)).returning());
  }
  async keyForAuth(lookup: string) {
    return this.catalog.get('key', lookup, () => this.readKeyForAuth(lookup));
  }
  private async readKeyForAuth(lookup: string) {
    return first(
      await this.db
        .select({
          id: s.apiKeys.id,
          projectId: s.apiKeys.projectId,
          secretHash: s.apiKeys.secretHash,
          revokedAt: s.apiKeys.revokedAt,
          kind: s.apiKeys.kind,
        })
        .from(s.apiKeys)
        .where(eq(s.apiKeys.lookup, lookup)),
    );
  }

  // ---- entries ----
  // Joins queued while a batch is in flight go out together (src/db/batcher.ts) in one transaction with
  // one multi-row INSERT … ON CONFLICT DO NOTHING RETURNING id: one commit for many requests; each promise
  // settles after that transaction committed. A row missing from RETURNING hit the live-email unique index.
  insertEntry(row: EntryRow, keyId: string, outbox?: (inserted: EntryRow) => OutboxWrites, ref?: string): Promise<InsertEntryResult> {
    return this.joins.add({ row, keyId, outbox, ref: row.referredBy === null ? ref : undefined });
  }

  private async insertBatch(batch: PendingJoin[]): Promise<InsertEntryResult[]> {
    // One transaction: join ordinals (the project's counter row, locked in project order), the rows,
    // the referral credits of rows that enter the queue as waiting, and their outbox rows. Two round
    // trips for a batch with no referral: BEGIN with the ordinal reservations, the projects' webhook
    // subscriptions and waiting totals, and the INSERT (each row's ordinal computed from its project's
    // counter by the INSERT itself); then the events (when a webhook subscribes, or for notices) with
    // the keys' last use and COMMIT. A batch with a `ref` or a referrer to credit sends its INSERT as a
    // round trip of its own, a named statement. A further one writes emails only when the batch queues
    // some. Each round trip waits for the event loop to read its answer between the turns that serve
    // requests, so fewer of them hold the ordinal lock for fewer turns (docs/performance.md, rounds
    // twelve, thirteen and twenty-eight). The values of simple queries of several statements are
    // inlined as escaped literals (src/db/pg/named.ts, literalRows in bulk.ts).
    const { ids, wrote } = await inTransaction(this.pool, (client) => writeJoins(client, batch, this.guesses));
    // `wrote`: the committed transaction wrote outbox rows: wake the dispatcher (not when no event was wanted).
    if (wrote) this.outboxWritten();
    return batch.map((p) => (ids.has(p.row.id) ? 'inserted' : 'duplicate'));
  }

  private entryFilter(projectId: string, search?: string): SQL {
    const live = and(eq(s.entries.projectId, projectId), isNull(s.entries.deletedAt))!;
    if (!search) return live;
    return and(live, sql`${s.entries.id} IN (${searchIds(projectId, search)})`)!;
  }
  async listEntries(projectId: string, page: PageArgs, search?: string): Promise<Counted<EntryRow>> {
    if (search) return this.searchPage(projectId, search, page);
    const where = this.entryFilter(projectId);
    // The page's ids from an index-only scan of (project_id, id), then only its rows: ordered by the
    // primary key instead, the planner walked it newest-first and read and dropped every newer row of
    // the other projects (10,000 rows of a second project: 655 buffers instead of 88 for page 1), and a
    // deep page read the heap row of every entry it skipped (250 ms instead of 38 ms at 1M).
    const byIds = (dir: typeof asc, limit: number, offset: number) =>
      this.db
        .select()
        .from(s.entries)
        .where(
          inArray(
            s.entries.id,
            this.db.select({ id: s.entries.id }).from(s.entries).where(where).orderBy(dir(s.entries.id)).limit(limit).offset(offset),
          ),
        )
        .orderBy(dir(s.entries.id));
    const newest = () => byIds(desc, page.limit, page.offset);
    // The first page is read from the newest end whatever the total: the count and the rows in parallel.
    if (page.offset === 0) {
      const [total, rows] = await Promise.all([this.liveCount(projectId), newest()]);
      return { rows, total };
    }
    const total = await this.liveCount(projectId);
    if (page.offset >= total) return { rows: [], total };
    // A deep page walks the (project_id, id) index from whichever end is nearer.
    const fromEnd = total - page.offset - page.limit;
    if (fromEnd >= page.offset || fromEnd < 0) return { rows: await newest(), total };
    const rows = await byIds(asc, page.limit, fromEnd);
    return { rows: rows.reverse(), total };
  }
  /**
   * A search page and its exact total from one pass over the matches: the trigram indexes give the
   * candidates, one bitmap heap scan of the narrow `entry_search` table checks them and keeps their ids
   * (the count needs that visit anyway), and only the page's rows are read from `entries`. Without this
   * the page query walked the id index newest-first through every entry when a needle is rare (one
   * match at 1M: the whole table).
   */
  private async searchPage(projectId: string, search: string, page: PageArgs): Promise<Counted<EntryRow>> {
    const m = await this.db.execute<{ n: string; ids: string[] | null }>(sql`
      WITH m AS MATERIALIZED (${searchIds(projectId, search)})
      SELECT (SELECT count(*) FROM m) AS n,
        (SELECT array_agg(id ORDER BY id DESC) FROM (SELECT id FROM m ORDER BY id DESC LIMIT ${page.limit} OFFSET ${page.offset}) p) AS ids`);
    const total = Number(m.rows[0]?.n ?? 0);
    const ids = m.rows[0]?.ids ?? [];
    if (!ids.length) return { rows: [], total };
    const rows = await this.db.select().from(s.entries).where(inArray(s.entries.id, ids)).orderBy(desc(s.entries.id));
    return { rows, total };
  }

  /** Live entries of a project, from the trigger-kept counters (migrations/pg/0002_entry_counts.sql). */
  private async liveCount(projectId: string): Promise<number> {
    const r = await this.db
      .select({ n: sql<string>`coalesce(sum(${s.entryCounts.live}), 0)` })
      .from(s.entryCounts)
      .where(eq(s.entryCounts.projectId, projectId));
    return Number(first(r)?.n ?? 0);
  }
  async entriesBefore(projectId: string, beforeId: string | null, limit: number, search?: string) {
    // Rows as arrays, turned into objects here: drizzle's row mapping was a sixth of a 1M export's CPU.
    const base = this.entryFilter(projectId, search);
    const where = beforeId ? and(base, lt(s.entries.id, beforeId)) : base;
    const rows = await arrayRows(this.pool, sql`SELECT ${EXPORT_COLS} FROM entries WHERE ${where} ORDER BY id DESC LIMIT ${limit}`);
    return rows.map(toExported);
  }
  private liveEntry(projectId: string, entryId: string) {
    return and(eq(s.entries.projectId, projectId), eq(s.entries.id, entryId), isNull(s.entries.deletedAt));
  }
  async entryInProject(projectId: string, entryId: string) {
    return first(await this.db.select().from(s.entries).where(this.liveEntry(projectId, entryId)));
  }
  async updateEntry(projectId: string, entryId: string, patch: { name?: string | null; metadata?: string }, now: number) {
    return first(
      await this.db
        .update(s.entries)
        .set({ ...patch, updatedAt: now })
        .where(this.liveEntry(projectId, entryId))
        .returning(),
    );
  }
  async softDeleteEntry(projectId: string, entryId: string, now: number, outbox?: (deleted: EntryRow) => OutboxWrites) {
    const row = await this.db.transaction(async (tx) => {
      const r = first(
        await tx.update(s.entries).set({ deletedAt: now, updatedAt: now }).where(this.liveEntry(projectId, entryId)).returning(),
      );
      if (r && outbox) await writeOutboxPg(tx, outbox(r));
      return r;
    });
    if (row && outbox) this.outboxWritten();
    return row;
  }

  onOutboxWrite(listener: () => void) {
    this.outboxListeners.push(listener);
  }
  /** Tells the dispatcher that committed outbox rows are waiting. */
  outboxWritten() {
    for (const l of this.outboxListeners) l();
  }
  async stats(projectId: string, sinceDay: number): Promise<StatsRows> {
    const live = this.entryFilter(projectId);
    const day = sql<number>`(${s.entries.createdAt} / ${sql.raw(String(DAY_MS))})`;
    const [total, perDay, topSources, topCountries] = await Promise.all([
      this.liveCount(projectId),
      this.db
        .select({ day, count: count() })
        .from(s.entries)
        .where(and(live, sql`${s.entries.createdAt} >= ${sinceDay * DAY_MS}`))
        .groupBy(day),
      this.db
        .select({ source: s.entries.source, count: count() })
        .from(s.entries)
        .where(live)
        .groupBy(s.entries.source)
        .orderBy(desc(count()), sql`${s.entries.source} COLLATE "C"`) // ties in byte order, as SQLite, whatever the database's collation
        .limit(10),
      this.db
        .select({ country: sql<string>`${s.entries.country}`, count: count() })
        .from(s.entries)
        .where(and(live, sql`${s.entries.country} IS NOT NULL`))
        .groupBy(s.entries.country)
        .orderBy(desc(count()), sql`${s.entries.country} COLLATE "C"`)
        .limit(10),
    ]);
    return {
      total,
      perDay: perDay.map((r) => ({ day: Number(r.day), count: r.count })),
      topSources,
      topCountries,
    };
  }

  private async paged<T>(
    table: typeof s.projects | typeof s.apiKeys | typeof s.entries,
    where: SQL | undefined,
    order: SQL,
    page: PageArgs,
  ): Promise<Counted<T>> {
    const total = first(await this.db.select({ n: count() }).from(table).where(where))?.n ?? 0;
    const rows =
      page.offset >= total ? [] : await this.db.select().from(table).where(where).orderBy(order).limit(page.limit).offset(page.offset);
    return { rows: rows as T[], total };
  }

  async checkWritable(): Promise<void> {
    const r = await this.pool.query<{ ro: boolean }>(`SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS ro`);
    if (r.rows[0]?.ro) {
      throw new Error(
        'The PostgreSQL database is read-only (a standby, or default_transaction_read_only is on): point --database-url at the primary.',
      );
    }
  }

  async close() {
    clearInterval(this.sweeper);
    await this.joins.drain();
    await this.pool.end();
  }
}
