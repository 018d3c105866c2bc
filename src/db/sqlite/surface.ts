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

  constructor(db: Database.Database) {
    this.insertSecret = db.prepare('INSERT INTO server_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING');
    this.selectSecret = db.prepare('SELECT value FROM server_secrets WHERE name = ?').pluck();
    this.purgeSolutions = db.prepare('DELETE FROM captcha_solutions WHERE expires_at < ?');
    this.insertSolution = db.prepare('INSERT INTO captcha_solutions (signature, expires_at) VALUES (?, ?) ON CONFLICT (signature) DO NOTHING');
    this.liveEmails = db
      .prepare('SELECT email_norm FROM entries WHERE project_id = ? AND deleted_at IS NULL AND email_norm IN (SELECT value FROM json_each(?))')
      .pluck();
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

  useCaptchaSolution(signature: string, expiresAt: number, now: number): boolean {
    this.purgeSolutions.run(now);
    return this.insertSolution.run(signature, expiresAt).changes === 1;
  }

  liveEmailNorms(projectId: string, norms: string[]): string[] {
    return this.liveEmails.all(projectId, JSON.stringify(norms)) as string[];
  }

  importEntries(rows: EntryRow[]): number {
    return rows.length ? this.importBatch.immediate(rows) : 0;
  }
}
