// SQLite implementation of the Store (better-sqlite3 + drizzle). Joins are group-committed through
// the shared Batcher (src/db/batcher.ts): every insert queued during one event-loop turn is written in
// one transaction, and each caller's promise settles only after that transaction has committed and
// the log was fsynced (off the event loop: wal-sync.ts). (A worker-thread writer was tried: on 2 shared
// cores it was 15-25% slower.) List, search and export reads are in entry-reads.ts.
import Database from 'better-sqlite3';
import { and, count, desc, eq, isNull, or, sql, type SQL } from 'drizzle-orm';
import { BoundedMap, CACHE_WEIGHT, rowWeight } from '../bounded-map.js';
import { liveKey, liveKeys } from '../conditions.js';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fileURLToPath } from 'node:url';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type {
  Counted,
  EntryRow,
  ImportedBatch,
  InsertEntryResult,
  KeyAuthRow,
  KeyRow,
  LimiterOptions,
  PageArgs,
  ProjectRow,
  ProjectSettingsPatch,
  SessionRow,
  StatsRows,
  Store,
  UserRow,
} from '../store.js';
import { mergedSettings } from '../store.js';
import { Batcher } from '../batcher.js';
import type { OutboxWrites } from '../outbox.js';
import { EntryReads } from './entry-reads.js';
import { FtsIndexer, registerSearchMatch } from './fts-indexer.js';
import { SqliteLifecycle } from './lifecycle.js';
import { SqliteEventStore, writeOutbox } from './outbox.js';
import { Checkpointer } from './checkpointer.js';
import { unsynced } from './sync.js';
import { openWalSync, type WalSync } from './wal-sync.js';
import { applyPragmas } from './pragmas.js';
import { joinBatch, type PendingJoin } from './join-batch.js';
import { isBusy, isUnavailable, translate, withRetry } from './busy.js';
import { DatabaseUnavailableError } from '../errors.js';
import { guardUnavailable, SUB_STORES } from '../guard.js';
import * as s from './schema.js';
import { SqliteSurface } from './surface.js';
import { sqliteUnavailable } from './unavailable.js';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
const DAY_MS = 86_400_000;
/** Most milliseconds a join batch stays open while each event-loop turn brings more joins (batcher.ts). */
const JOIN_LINGER_MS = 5;

/** Opens (creating if needed) the SQLite file, applies pending migrations, returns the Store. */
export function openSqliteStore(file: string): Store {
  const sqlite = new Database(file);
  applyPragmas(sqlite);
  const db = drizzle(sqlite, { schema: s });
  migrate(db, { migrationsFolder: MIGRATIONS });
  // From here on a lock barely blocks the event loop: a statement waits at most 20 ms, then the store's
  // methods retry on timers (busy.ts), the lifecycle and events sub-stores' asynchronous ones too
  // (retryingAsync); their synchronous ones get the 20 ms wait only.
  sqlite.pragma('busy_timeout = 20');
  return retrying(new SqliteStore(sqlite, db, file));
}

// Methods that manage their own retries (insertEntry's batch) or touch no database.
const DIRECT = new Set(['insertEntry', 'rateLimiter', 'close', 'constructor', 'ping']);
// The join path's cached lookups (freshCaches).
const CACHED_READS = new Set(['keyForAuth', 'projectBySlug']);

/**
 * A sub-store whose asynchronous methods retry on a locked database like the store's own (an admin's
 * soft delete met the checkpoint worker's lock for more than the 20 ms busy timeout and answered 503 in a
 * loaded CI run). A busy error inside their transactions rolls the transaction back, so running the
 * method again is safe. Synchronous methods (some run inside other transactions) stay as they are.
 */
function retryingAsync<T extends object>(sub: T): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(sub, {
    get(obj, prop, receiver) {
      const v: unknown = Reflect.get(obj, prop, receiver);
      if (typeof v !== 'function' || prop === 'constructor') return v;
      let fn = wrapped.get(prop);
      if (!fn) {
        const method = v as (...a: unknown[]) => unknown;
        fn = (...args: unknown[]) => {
          const out = method.apply(obj, args);
          if (!(out instanceof Promise)) return out;
          return out.catch((err: unknown) => (isBusy(err) ? withRetry(() => method.apply(obj, args)) : Promise.reject(err)));
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

/** The store with every database call retried while locked, and storage failures turned into 503s. */
function retrying(store: SqliteStore): Store {
  const subs = new Map<PropertyKey, unknown>();
  const guarded = (prop: PropertyKey, v: unknown) => {
    if (!subs.has(prop))
      subs.set(
        prop,
        guardUnavailable(retryingAsync(v as object), (err) => {
          const t = translate(err);
          return t instanceof DatabaseUnavailableError ? t : undefined;
        }),
      );
    return subs.get(prop);
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      // Sub-stores (lifecycle, events) keep their synchronous methods synchronous (some run inside other
      // transactions): storage errors become 503s there, without the timer retries.
      if (SUB_STORES.includes(prop)) return guarded(prop, v);
      if (typeof v !== 'function' || typeof prop !== 'string' || DIRECT.has(prop)) return v;
      if (CACHED_READS.has(prop)) return (...args: unknown[]) => withRetry(() => v.apply(target, args));
      // Any other call may change projects or keys: the next cached lookup reads the version again.
      return (...args: unknown[]) => {
        target.staleCaches();
        return withRetry(() => v.apply(target, args)).finally(target.staleCaches);
      };
    },
  });
}

class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  private readonly joins: Batcher<PendingJoin, InsertEntryResult>;
  private readonly keyAuthStmt;
  private readonly projectBySlugStmt;
  private readonly insertBatch;
  private readonly reads: EntryReads;
  private readonly fts: FtsIndexer;
  private readonly checkpointer: Checkpointer | undefined;
  /** The join batches' fsync, off the event loop (wal-sync.ts); undefined: they commit with FULL. */
  private readonly walSync: WalSync | undefined;
  private readonly surface: SqliteSurface;
  readonly lifecycle: SqliteLifecycle;
  readonly events: SqliteEventStore;
  private outboxListeners: (() => void)[] = [];
  // Key and project rows of the join path, valid while config_version (bumped by triggers on every
  // change to projects and api_keys, by any process) is unchanged: one tiny read per call instead of
  // the row lookups. Unknown lookups and slugs are not cached.
  private readonly versionStmt;
  private cachedVersion = -1;
  private versionRead = false;
  // Bounded by size too (bounded-map.ts): a project row carries its settings.
  private readonly keyCache = new BoundedMap<string, KeyAuthRow>(10_000, CACHE_WEIGHT, (_k, row) => rowWeight(row));
  private readonly projectCache = new BoundedMap<string, ProjectRow>(10_000, CACHE_WEIGHT, (_k, row) => rowWeight(row));
  private wroteOutbox = false;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly db: BetterSQLite3Database<typeof s>,
    private readonly file: string,
  ) {
    registerSearchMatch(sqlite);
    this.reads = new EntryReads(sqlite);
    // A file database in WAL mode (not ':memory:'): checkpoints on a worker thread.
    this.checkpointer = sqlite.memory ? undefined : new Checkpointer(file, sqlite);
    this.walSync = openWalSync(sqlite, file);
    this.fts = new FtsIndexer(sqlite, () => this.checkpointer?.running ?? false);
    this.surface = new SqliteSurface(sqlite);
    this.lifecycle = new SqliteLifecycle(sqlite, () => this.outboxWritten(), this.walSync);
    // An import's reorder cut short by a crash (reorder.ts): finished before anything reads the queue.
    this.lifecycle.finishReorders();
    this.events = new SqliteEventStore(sqlite, db, () => this.outboxWritten(), this.walSync);
    this.keyAuthStmt = sqlite.prepare(
      `SELECT id, project_id AS projectId, secret_hash AS secretHash, revoked_at AS revokedAt, kind
       FROM api_keys WHERE lookup = ?`,
    );
    this.versionStmt = sqlite.prepare('SELECT v FROM config_version WHERE id = 1').pluck();
    this.projectBySlugStmt = sqlite.prepare(
      `SELECT id, user_id AS userId, name, slug, created_at AS createdAt, updated_at AS updatedAt,
         deleted_at AS deletedAt, allowed_origins AS allowedOrigins, block_disposable AS blockDisposable,
         honeypot_field AS honeypotField, settings FROM projects WHERE slug = ? AND deleted_at IS NULL`,
    );
    this.insertBatch = joinBatch(sqlite, this.lifecycle, this.surface, () => {
      this.wroteOutbox = true;
    });
    // A lock held by another process: the whole batch is retried on timers (busy.ts), never row by
    // row; locked too long, full or read-only: every join of the batch gets 503 at once.
    this.joins = new Batcher(
      (batch) =>
        withRetry(() => {
          // After a failed fsync nothing more is written: it could not be promised (wal-sync.ts).
          this.walSync?.assertSound();
          // Committed without an fsync when the log has its own (wal-sync.ts): the 201s wait for it.
          const results = this.walSync ? unsynced(sqlite, () => this.insertBatch.immediate(batch)) : this.insertBatch.immediate(batch);
          this.checkpointer?.committed(); // the log grew: the worker copies it back, off this thread
          if (this.wroteOutbox) this.outboxWritten(); // committed: wake the dispatcher
          return results;
        }).then(async (results) => {
          // The next batch waits too. Written while this fdatasync runs, it would hold up this one's
          // callback on the one thread: 18 % fewer joins/s with a worse p99 (docs/performance.md, round fifteen).
          await this.walSync?.durable();
          // Index the new entries for search, off the join path (searches find them queued meanwhile),
          // 25 ms after their 201s (fts-indexer.ts) rather than mid-fsync: one run covers many batches.
          this.fts.soon();
          return results;
        }),
      {
        fatal: (err) => (isUnavailable(err) || err instanceof DatabaseUnavailableError ? translate(err) : undefined),
        // The commit blocks the event loop, and libuv accepts one new connection per turn: without
        // lingering, joins from new connections (one per browser) would commit one at a time.
        lingerMs: JOIN_LINGER_MS,
      },
    );
  }

  // ---- users ----
  async countUsers() {
    return this.db.select({ n: count() }).from(s.users).get()?.n ?? 0;
  }
  async insertUser(row: UserRow) {
    const r = this.db.insert(s.users).values(row).onConflictDoNothing().run();
    return r.changes === 1 ? ('inserted' as const) : ('duplicate' as const);
  }
  async insertFirstUser(row: UserRow) {
    // BEGIN IMMEDIATE takes the write lock first, so no other process can insert between check and insert.
    return this.sqlite
      .transaction(() => {
        if (this.db.select({ n: count() }).from(s.users).get()?.n) return 'closed' as const;
        this.db.insert(s.users).values(row).run();
        return 'inserted' as const;
      })
      .immediate();
  }
  async userByEmail(emailNorm: string) {
    return this.db.select().from(s.users).where(eq(s.users.emailNorm, emailNorm)).get();
  }
  async userById(id: string) {
    return this.db.select().from(s.users).where(eq(s.users.id, id)).get();
  }
  async setUserPassword(id: string, passwordHash: string, now: number) {
    const r = this.db.update(s.users).set({ passwordHash, updatedAt: now }).where(eq(s.users.id, id)).run();
    return r.changes === 1;
  }

  // ---- sessions ----
  async insertSession(row: SessionRow) {
    this.db.insert(s.sessions).values(row).run();
  }
  async sessionByHash(tokenHash: string, now: number) {
    const r = this.db
      .select({ session: s.sessions, user: s.users })
      .from(s.sessions)
      .innerJoin(s.users, eq(s.users.id, s.sessions.userId))
      .where(and(eq(s.sessions.tokenHash, tokenHash), sql`${s.sessions.expiresAt} > ${now}`))
      .get();
    return r ?? undefined;
  }
  async extendSession(tokenHash: string, expiresAt: number) {
    this.db.update(s.sessions).set({ expiresAt }).where(eq(s.sessions.tokenHash, tokenHash)).run();
  }
  async deleteSession(tokenHash: string) {
    this.db.delete(s.sessions).where(eq(s.sessions.tokenHash, tokenHash)).run();
  }
  async deleteUserSessions(userId: string) {
    this.db.delete(s.sessions).where(eq(s.sessions.userId, userId)).run();
  }

  // ---- projects ----
  async insertProject(row: ProjectRow) {
    const r = this.db.insert(s.projects).values(row).onConflictDoNothing().run();
    return r.changes === 1 ? ('inserted' as const) : ('duplicate' as const);
  }
  async listProjects(userId: string, page: PageArgs): Promise<Counted<ProjectRow>> {
    const where = and(eq(s.projects.userId, userId), isNull(s.projects.deletedAt));
    return this.paged(s.projects, where, desc(s.projects.id), page);
  }
  async projectForUser(userId: string, idOrSlug: string) {
    return this.db
      .select()
      .from(s.projects)
      .where(
        and(eq(s.projects.userId, userId), isNull(s.projects.deletedAt), or(eq(s.projects.id, idOrSlug), eq(s.projects.slug, idOrSlug))),
      )
      .get();
  }
  /**
   * Clears the key and project caches when another write (here or in another process) changed either
   * table. The version is read once per event-loop turn: the requests read in one turn (a key check and
   * a slug lookup each) share it, as on PostgreSQL (catalog-cache.ts). A write through this store
   * forgets the read (`staleCaches`, called by every other store method), so a change made here
   * applies to the very next lookup, even within the turn.
   */
  private freshCaches() {
    if (this.versionRead) return;
    const v = this.versionStmt.get() as number;
    if (v !== this.cachedVersion) {
      this.keyCache.clear();
      this.projectCache.clear();
      this.cachedVersion = v;
    }
    this.versionRead = true;
    setImmediate(this.staleCaches);
  }
  readonly staleCaches = () => {
    this.versionRead = false;
  };
  async projectBySlug(slug: string) {
    this.freshCaches();
    let p = this.projectCache.get(slug);
    if (!p) {
      p = this.projectBySlugStmt.get(slug) as ProjectRow | undefined;
      if (!p) return undefined;
      p.blockDisposable = Boolean(p.blockDisposable); // raw statement: 0/1
      this.projectCache.set(slug, p);
    }
    return { ...p }; // a copy: callers may not change the cached row
  }
  async projectByIdAny(id: string) {
    return this.db.select().from(s.projects).where(eq(s.projects.id, id)).get();
  }
  async renameProject(id: string, name: string, now: number) {
    return this.db
      .update(s.projects)
      .set({ name, updatedAt: now })
      .where(and(eq(s.projects.id, id), isNull(s.projects.deletedAt)))
      .returning()
      .get();
  }
  async softDeleteProject(id: string, now: number) {
    return this.db
      .update(s.projects)
      .set({ deletedAt: now })
      .where(and(eq(s.projects.id, id), isNull(s.projects.deletedAt)))
      .returning()
      .get();
  }
  async restoreProject(id: string, now: number) {
    return this.db.update(s.projects).set({ deletedAt: null, updatedAt: now }).where(eq(s.projects.id, id)).returning().get();
  }

  async updateProjectSettings(id: string, { features, ...columns }: ProjectSettingsPatch, rekeyReferrers = false) {
    // One transaction: the settings JSON is read and written with the fields given set over it, and a
    // crash between the boost and the re-keying would leave the queue ordered by the old boost for good
    // (a retry of the same PUT saw no change to apply).
    return this.sqlite.transaction(() => {
      const live = and(eq(s.projects.id, id), isNull(s.projects.deletedAt));
      const set: Partial<ProjectRow> = { ...columns };
      if (features) {
        const current = this.db.select({ settings: s.projects.settings }).from(s.projects).where(live).get();
        if (!current) return undefined;
        set.settings = mergedSettings(current.settings, features);
      }
      const row = this.db.update(s.projects).set(set).where(live).returning().get();
      if (row && rekeyReferrers) this.lifecycle.rekeyReferrers(id);
      return row;
    })();
  }

  // ---- api keys ----
  async insertKey(row: KeyRow) {
    this.db.insert(s.apiKeys).values(row).run();
  }
  async listKeys(projectId: string, page: PageArgs): Promise<Counted<KeyRow>> {
    return this.paged(s.apiKeys, liveKeys(s.apiKeys, projectId), desc(s.apiKeys.id), page);
  }
  private liveKey(projectId: string, keyId: string) {
    return liveKey(s.apiKeys, projectId, keyId);
  }
  async keyInProject(projectId: string, keyId: string) {
    return this.db.select().from(s.apiKeys).where(this.liveKey(projectId, keyId)).get();
  }
  async renameKey(projectId: string, keyId: string, name: string, now: number) {
    return this.db.update(s.apiKeys).set({ name, updatedAt: now }).where(this.liveKey(projectId, keyId)).returning().get();
  }
  async revokeKey(projectId: string, keyId: string, now: number) {
    return this.db.update(s.apiKeys).set({ revokedAt: now, updatedAt: now }).where(this.liveKey(projectId, keyId)).returning().get();
  }
  async keyForAuth(lookup: string) {
    this.freshCaches();
    let k = this.keyCache.get(lookup);
    if (!k) {
      k = this.keyAuthStmt.get(lookup) as KeyAuthRow | undefined;
      if (!k) return undefined;
      this.keyCache.set(lookup, k);
    }
    return { ...k };
  }

  // ---- entries ----
  insertEntry(row: EntryRow, keyId: string, outbox?: (inserted: EntryRow) => OutboxWrites, ref?: string): Promise<InsertEntryResult> {
    return this.joins.add({ row, keyId, outbox, ref: row.referredBy === null ? ref : undefined });
  }

  onOutboxWrite(listener: () => void) {
    this.outboxListeners.push(listener);
  }
  /** Tells the dispatcher that committed outbox rows are waiting. */
  outboxWritten() {
    this.wroteOutbox = false;
    for (const l of this.outboxListeners) l();
  }

  /** Throws a clear Error unless a write can be committed now (start-up check; cheap enough for a readiness probe). */
  async checkWritable(): Promise<void> {
    try {
      this.sqlite
        .prepare(`INSERT INTO search_state (k, v) VALUES ('write_check', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`)
        .run(Date.now() % 1_000_000_000);
    } catch (err) {
      if (isBusy(err)) throw err; // retried by the wrapper, then 503
      const e = err as Error & { code?: string };
      throw new Error(
        `The SQLite database ${this.file} is not writable (${e.code ?? e.name}: ${e.message}). ` +
          'Check the file and its directory: permissions, free disk space, a read-only mount.',
      );
    }
  }

  private entryFilter(projectId: string): SQL {
    return and(eq(s.entries.projectId, projectId), isNull(s.entries.deletedAt))!;
  }
  async listEntries(projectId: string, page: PageArgs, search?: string): Promise<Counted<EntryRow>> {
    return this.reads.list(projectId, page, search);
  }
  async entriesBefore(projectId: string, beforeId: string | null, limit: number, search?: string) {
    return this.reads.before(projectId, beforeId, limit, search);
  }
  private liveEntry(projectId: string, entryId: string) {
    return and(eq(s.entries.projectId, projectId), eq(s.entries.id, entryId), isNull(s.entries.deletedAt));
  }
  async entryInProject(projectId: string, entryId: string) {
    return this.db.select().from(s.entries).where(this.liveEntry(projectId, entryId)).get();
  }
  async updateEntry(projectId: string, entryId: string, patch: { name?: string | null; metadata?: string }, now: number) {
    return this.db
      .update(s.entries)
      .set({ ...patch, updatedAt: now })
      .where(this.liveEntry(projectId, entryId))
      .returning()
      .get();
  }
  async softDeleteEntry(projectId: string, entryId: string, now: number, outbox?: (deleted: EntryRow) => OutboxWrites) {
    const row = this.sqlite.transaction(() => {
      const r = this.db
        .update(s.entries)
        .set({ deletedAt: now, updatedAt: now })
        .where(this.liveEntry(projectId, entryId))
        .returning()
        .get();
      if (r && outbox) writeOutbox(this.sqlite, outbox(r));
      return r;
    })();
    if (row && outbox) this.outboxWritten();
    return row;
  }
  async stats(projectId: string, sinceDay: number): Promise<StatsRows> {
    const live = this.entryFilter(projectId);
    const day = sql<number>`(${s.entries.createdAt} / ${sql.raw(String(DAY_MS))})`;
    const total = this.db.select({ n: s.entryCounts.live }).from(s.entryCounts).where(eq(s.entryCounts.projectId, projectId)).get()?.n ?? 0;
    const perDay = this.db
      .select({ day, count: count() })
      .from(s.entries)
      .where(and(live, sql`${s.entries.createdAt} >= ${sinceDay * DAY_MS}`))
      .groupBy(day)
      .all();
    const topSources = this.db
      .select({ source: s.entries.source, count: count() })
      .from(s.entries)
      .where(live)
      .groupBy(s.entries.source)
      .orderBy(desc(count()), s.entries.source)
      .limit(10)
      .all();
    const topCountries = this.db
      .select({ country: sql<string>`${s.entries.country}`, count: count() })
      .from(s.entries)
      .where(and(live, sql`${s.entries.country} IS NOT NULL`))
      .groupBy(s.entries.country)
      .orderBy(desc(count()), s.entries.country)
      .limit(10)
      .all();
    return { total, perDay: perDay.map((r) => ({ day: Number(r.day), count: r.count })), topSources, topCountries };
  }

  private paged<T>(
    table: typeof s.projects | typeof s.apiKeys | typeof s.entries,
    where: SQL | undefined,
    order: SQL,
    page: PageArgs,
  ): Counted<T> {
    const total = this.db.select({ n: count() }).from(table).where(where).get()?.n ?? 0;
    const rows =
      page.offset >= total ? [] : this.db.select().from(table).where(where).orderBy(order).limit(page.limit).offset(page.offset).all();
    return { rows: rows as T[], total };
  }

  // ---- sign-up surface ----
  async serverSecret(name: string, make: () => string) {
    return this.surface.serverSecret(name, make);
  }
  async useCaptchaSolution(signature: string, expiresAt: number, now: number) {
    return this.surface.useCaptchaSolution(signature, expiresAt, now);
  }
  async liveEmailNorms(projectId: string, norms: string[]) {
    return this.surface.liveEmailNorms(projectId, norms);
  }
  async importEntries(rows: EntryRow[]): Promise<ImportedBatch> {
    if (!rows.length) return { inserted: 0, first: 0 };
    this.walSync?.assertSound();
    // Committed like a join batch: without an fsync inside COMMIT, which held every other request for
    // the disk (up to 0.9 s for a batch of 4,000 rows), then the log's fdatasync off the event loop
    // before the batch counts as written (wal-sync.ts).
    const batch = () => this.importBatch(rows);
    const written = this.walSync ? unsynced(this.sqlite, batch) : batch();
    this.checkpointer?.committed(); // the log grew: the worker copies it back, off this thread
    await this.walSync?.durable();
    return written;
  }

  private importBatch(rows: EntryRow[]): ImportedBatch {
    return this.sqlite
      .transaction(() => {
        // Ordinals for the batch in the same transaction as its rows (the store gives them, as for
        // joins); a row skipped as a duplicate takes none, and what the batch did not use is given back.
        const projectId = rows[0]!.projectId;
        const first = this.lifecycle.reserveOrdinalsSync(projectId, rows.length);
        const inserted = this.surface.importEntries(rows, first);
        if (inserted < rows.length) this.lifecycle.releaseOrdinalsSync(projectId, rows.length - inserted);
        return { inserted, first };
      })
      .immediate();
  }

  // One SQLite file means one server process: counters in memory are shared by every request.
  rateLimiter(opts: LimiterOptions) {
    return new RateLimiterMemory(opts);
  }

  /** Readiness: takes and drops the write lock without waiting, so a locked or read-only file shows at once. */
  async ping() {
    // Not ready for good after a failed fsync of the log (wal-sync.ts): only a restart clears it.
    this.walSync?.assertSound();
    const busy = this.sqlite.pragma('busy_timeout', { simple: true }) as number;
    this.sqlite.pragma('busy_timeout = 0');
    try {
      this.sqlite.exec('BEGIN IMMEDIATE');
      this.sqlite.exec('ROLLBACK');
    } catch (err) {
      throw sqliteUnavailable(err) ?? err;
    } finally {
      this.sqlite.pragma(`busy_timeout = ${busy}`);
    }
  }

  async close() {
    await this.joins.drain();
    await this.walSync?.close();
    this.fts.close(); // what is still queued is indexed by the next process to open the file
    this.surface.flushSolutions();
    await this.checkpointer?.close(); // first: the last connection to close checkpoints and removes the log
    this.sqlite.close();
  }
}
