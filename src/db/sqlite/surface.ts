// SQLite side of the sign-up surface's storage: server secrets, the captcha replay table and bulk
// import. Plain prepared statements; the Store methods in store.ts delegate here.
import type Database from 'better-sqlite3';
import type { EntryRow } from '../store.js';
import { INSERT_ENTRY_SQL } from './pragmas.js';

/** An entry row with `fields` filled in (rows built before custom fields existed omit it). */
export const withFields = (row: EntryRow) => (row.fields === undefined ? { ...row, fields: '{}' } : row);

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
    this.insertSolution = db.prepare(
      'INSERT INTO captcha_solutions (signature, expires_at) VALUES (?, ?) ON CONFLICT (signature) DO NOTHING',
    );
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
    const insertEntry = db.prepare(INSERT_ENTRY_SQL);
    this.importBatch = db.transaction((rows: EntryRow[]) => {
      let n = 0;
      for (const row of rows) n += insertEntry.run(withFields(row)).changes;
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
   * own: a separate small transaction per join halved join throughput, an indexed read cost a fifth.
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

  importEntries(rows: EntryRow[]): number {
    return rows.length ? this.importBatch.immediate(rows) : 0;
  }
}
