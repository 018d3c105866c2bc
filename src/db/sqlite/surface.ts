// SQLite side of the sign-up surface's storage: server secrets, the captcha replay table and bulk
// import. Plain prepared statements; the Store methods in store.ts delegate here.
//
// Bulk import keeps the derived tables (entries_search + the FTS5 trigram index, entry_counts,
// position_buckets, search_state's rowid_order) once per batch instead of once per row: inside the
// batch's transaction it drops the three per-row AFTER INSERT triggers that keep them (0003, 0006),
// inserts the rows, brings the derived tables up to date with a few INSERT … SELECT statements over
// the new rowids, and re-creates the triggers from the SQL it read from sqlite_master. DDL is
// transactional in SQLite, so no other transaction (a join right after the batch, another process,
// a crash mid-batch) ever sees the triggers missing or the derived tables behind: they commit or
// roll back together with the rows. Measured (100k rows, batches of 1,000, same run, load ≈ 20):
// 37.4 s per-row triggers vs 12.8 s per batch; the FTS insert and the per-row trigger calls were
// most of it.
import type Database from 'better-sqlite3';
import type { EntryRow } from '../store.js';
import { INSERT_IMPORTED_SQL } from './pragmas.js';

/** An entry row with `fields` filled in (rows built before custom fields existed omit it). */
export const withFields = (row: EntryRow) => (row.fields === undefined ? { ...row, fields: '{}' } : row);

/** The per-row AFTER INSERT triggers on entries that a bulk import replaces by per-batch statements. */
const BULK_TRIGGERS = ['entries_live_ai', 'entries_order_ai', 'entries_queue_ai'];

// An import batch's live counts and queue buckets (entry_counts_ai and entries_queue_ai for the batch's
// rowids). Both read `entries NOT INDEXED`: left to itself SQLite walked a whole index in the grouped
// order and checked every entry's rowid, 50 and 46 ms per batch at 1M entries, against 3 ms for the
// batch's rowid range (the rowid is still searched: NOT INDEXED leaves the primary key).
export const IMPORTED_COUNTS_SQL = `INSERT INTO entry_counts(project_id, live)
  SELECT project_id, count(*) FROM entries NOT INDEXED WHERE rowid > @from AND deleted_at IS NULL GROUP BY project_id
  ON CONFLICT(project_id) DO UPDATE SET live = live + excluded.live`;
export const IMPORTED_BUCKETS_SQL = `INSERT INTO position_buckets(project_id, bucket, n)
  SELECT project_id, k >> 10, count(*) FROM entries NOT INDEXED
  WHERE rowid > @from AND status = 'waiting' AND deleted_at IS NULL GROUP BY project_id, k >> 10
  ON CONFLICT(project_id, bucket) DO UPDATE SET n = n + excluded.n`;

export class SqliteSurface {
  private readonly insertSecret;
  private readonly selectSecret;
  private readonly purgeSolutions;
  private readonly insertSolution;
  private readonly importBatch;
  private readonly liveEmails;
  private readonly writeSolutions;
  private readonly used = new Map<string, number>();
  private pending: [string, number][] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastPurge = 0;

  constructor(db: Database.Database) {
    this.insertSecret = db.prepare('INSERT INTO server_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING');
    this.selectSecret = db.prepare('SELECT value FROM server_secrets WHERE name = ?').pluck();
    this.purgeSolutions = db.prepare('DELETE FROM captcha_solutions WHERE expires_at < ?');
    // No key on the signature (migration 0018): a solution is used once in this process (the map
    // below), so its row is written once, nearly in expiry order: appended to the table and its index.
    this.insertSolution = db.prepare('INSERT INTO captcha_solutions (signature, expires_at) VALUES (?, ?)');
    this.liveEmails = db
      .prepare(
        'SELECT email_norm FROM entries WHERE project_id = ? AND deleted_at IS NULL AND email_norm IN (SELECT value FROM json_each(?))',
      )
      .pluck();
    // Solutions still unexpired from before a restart: known in memory from the start.
    for (const r of db.prepare('SELECT signature, expires_at FROM captcha_solutions WHERE expires_at >= ?').raw().iterate(Date.now())) {
      const [sig, exp] = r as [string, number];
      this.used.set(sig, exp);
    }
    this.writeSolutions = db.transaction(() => this.writePendingSolutions());
    const insertEntry = db.prepare(INSERT_IMPORTED_SQL);
    const triggers = db.prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'entries' AND name IN (${BULK_TRIGGERS.map(() => '?').join(', ')})`,
    );
    const maxRowid = db.prepare('SELECT coalesce(max(rowid), 0) FROM entries').pluck();
    const maxId = db.prepare('SELECT max(id) FROM entries').pluck();
    // The derived rows for entries with rowid > ? (the batch: rowids grow from the old maximum).
    const bulk = [
      // entries_live_ai
      // (search keys of migrations/sqlite/0008_search.sql; the rows go straight into the FTS index, not
      // through fts_pending as a join's do: the batch is already off the join path)
      db.prepare(
        `INSERT INTO entries_search(sk, email, name)
         SELECT (p.n << 40) + e.rowid, e.email, e.name FROM entries e JOIN search_projects p ON p.project_id = e.project_id
         WHERE e.rowid > @from AND e.deleted_at IS NULL`,
      ),
      db.prepare(
        `INSERT INTO entries_fts(rowid, email, name)
         SELECT (p.n << 40) + e.rowid, e.email, e.name FROM entries e JOIN search_projects p ON p.project_id = e.project_id
         WHERE e.rowid > @from AND e.deleted_at IS NULL`,
      ),
      db.prepare(IMPORTED_COUNTS_SQL),
      // entries_queue_ai
      db.prepare(IMPORTED_BUCKETS_SQL),
    ];
    // entries_order_ai: rowid order stops matching id order when a new id is not above every id before it.
    const fixOrder = db.prepare(
      `UPDATE search_state SET v = 0 WHERE k = 'rowid_order' AND v <> 0 AND EXISTS (
         SELECT 1 FROM (SELECT id, lag(id, 1, @maxId) OVER (ORDER BY rowid) AS prev FROM entries WHERE rowid > @from)
         WHERE prev >= id)`,
    );
    this.importBatch = db.transaction((rows: EntryRow[], firstOrdinal: number) => {
      const found = triggers.all(...BULK_TRIGGERS) as { name: string; sql: string }[];
      let n = 0;
      // A row takes the next ordinal only once it is inserted: a duplicate takes none.
      const insertAll = () => {
        for (const row of rows) {
          row.ordinal = firstOrdinal + n;
          row.k = row.ordinal;
          n += insertEntry.run(withFields(row)).changes;
        }
      };
      if (found.length !== BULK_TRIGGERS.length) {
        // Not the schema this code knows: keep the per-row triggers that are there.
        insertAll();
        return n;
      }
      const from = maxRowid.get() as number;
      const last = maxId.get() as string | null;
      for (const t of found) db.exec(`DROP TRIGGER ${t.name}`);
      insertAll();
      if (n) {
        for (const stmt of bulk) stmt.run({ from });
        fixOrder.run({ from, maxId: last });
      }
      for (const t of found) db.exec(t.sql);
      return n;
    });
  }

  serverSecret(name: string, make: () => string): string {
    this.insertSecret.run(name, make(), Date.now());
    return this.selectSecret.get(name) as string;
  }

  /**
   * One SQLite file means one server process, so used solutions are known in memory at once; they are
   * written to captcha_solutions (for restarts) inside the next entry insert's transaction, before its
   * fsync (see writePendingSolutions), or within a second by a timer when no join follows. Unexpired
   * solutions are loaded at start, so the check is a Map lookup on the join path, with no I/O of its
   * own: a separate small transaction per join halved join throughput, an indexed read cost a fifth,
   * and a primary key on the signature (random) another fifth (migration 0018).
   */
  useCaptchaSolution(signature: string, expiresAt: number, now: number): boolean {
    if (now - this.lastPurge > 60_000) {
      this.lastPurge = now;
      for (const [sig, exp] of this.used) if (exp < now) this.used.delete(sig);
      this.purgeSolutions.run(now);
    }
    if (this.used.has(signature)) return false;
    this.used.set(signature, expiresAt);
    this.pending.push([signature, expiresAt]);
    this.timer ??= setTimeout(() => this.flushSolutions(), 1000);
    return true;
  }

  /** Writes the solutions used since the last write (call inside an open transaction). */
  writePendingSolutions(): void {
    for (const [sig, exp] of this.pending) this.insertSolution.run(sig, exp);
    this.pending = [];
  }

  /** Writes pending solutions in their own transaction (timer fallback, and on close). */
  flushSolutions(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length) this.writeSolutions.immediate();
  }

  liveEmailNorms(projectId: string, norms: string[]): string[] {
    return this.liveEmails.all(projectId, JSON.stringify(norms)) as string[];
  }

  /** Inserts the rows not already on the list, numbering them from `firstOrdinal`; how many. */
  importEntries(rows: EntryRow[], firstOrdinal: number): number {
    return rows.length ? this.importBatch.immediate(rows, firstOrdinal) : 0;
  }
}
