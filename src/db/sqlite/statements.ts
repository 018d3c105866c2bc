// The prepared statements of one connection, prepared on first use and kept: the SQL text is the key,
// and a raw statement (rows as arrays) is kept apart from the plain one of the same text. The sub-stores
// (entry reads, lifecycle, outbox) each hold one; their SQL is a fixed set of texts, so it stays small.
import type Database from 'better-sqlite3';

export class Statements {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  /** The statement for `sql`; `raw`: one that returns rows as arrays. */
  get(sql: string, raw = false): Database.Statement {
    const key = (raw ? 'r:' : 's:') + sql;
    let s = this.cache.get(key);
    if (!s) {
      s = this.db.prepare(sql);
      if (raw) s.raw();
      this.cache.set(key, s);
    }
    return s;
  }
}
