// An import batch on SQLite (src/db/sqlite/surface.ts, Store.importEntries): its live counts and queue
// buckets are computed from the batch's own rowids, not from a walk of a whole index, and the counts
// they leave are those the per-row triggers keep for joins.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { IMPORTED_BUCKETS_SQL, IMPORTED_COUNTS_SQL } from '../../src/db/sqlite/surface.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { entry as entryRow, projectWithKeyIn } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-import-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an import batch on SQLite', () => {
  it("reads only the batch's rowids for its counts and buckets, and keeps them right", async () => {
    const file = join(dir, 'import.db');
    const store = openSqliteStore(file);
    const { p, k } = await projectWithKeyIn(store);
    const { p: other } = await projectWithKeyIn(store);
    for (let i = 0; i < 30; i++) await store.insertEntry(entryRow(p.id), k.id);
    await store.importEntries(Array.from({ length: 3_000 }, () => entryRow(other.id)));
    await store.importEntries(Array.from({ length: 2_000 }, (_, i) => entryRow(p.id, i % 4 ? {} : { status: 'pending' })));

    const db = new Database(file, { readonly: true });
    for (const sql of [IMPORTED_COUNTS_SQL, IMPORTED_BUCKETS_SQL]) {
      const select = sql.slice(sql.indexOf('SELECT'), sql.indexOf('ON CONFLICT'));
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${select}`).all({ from: 1 }) as { detail: string }[]).map((r) => r.detail);
      expect(plan.join(' | ')).toContain('SEARCH entries USING INTEGER PRIMARY KEY (rowid>?)');
      expect(plan.join(' | ')).not.toMatch(/USING (COVERING )?INDEX/);
    }
    // What the batches added is what a count of the rows gives.
    const live = db.prepare('SELECT live FROM entry_counts WHERE project_id = ?').pluck();
    expect(live.get(p.id)).toBe(2_030);
    expect(live.get(other.id)).toBe(3_000);
    const buckets = db.prepare('SELECT sum(n) FROM position_buckets WHERE project_id = ?').pluck();
    const waiting = db.prepare("SELECT count(*) FROM entries WHERE project_id = ? AND status = 'waiting' AND deleted_at IS NULL").pluck();
    expect(buckets.get(p.id)).toBe(waiting.get(p.id));
    expect(waiting.get(p.id)).toBe(1_530);
    db.close();
    await store.close();
  });
});
