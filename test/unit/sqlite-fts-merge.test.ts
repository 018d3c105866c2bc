// The search index's segments are merged off the event loop (migration 0012, src/db/sqlite/checkpointer.ts,
// src/db/sqlite/fts-indexer.ts): FTS5 automerge is off, so an indexing run only adds a segment, and the
// checkpoint worker merges in bounded steps; without a worker, each run ends with such a step. Either
// way the segments stay few, the index stays consistent, and every entry is found.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FtsIndexer } from '../../src/db/sqlite/fts-indexer.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { EntryRow, Store } from '../../src/db/store.js';
import { entry as entryRow, project, user } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-fts-merge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = (i: number): EntryRow =>
  entryRow('prj_1', {
    id: `ent_${String(i).padStart(4, '0')}`,
    email: `person${i}@merge${i % 7}.example`,
    emailNorm: `person${i}@merge${i % 7}.example`,
    name: `Name ${i}`,
    source: 's',
    createdAt: i,
    updatedAt: i,
  });

async function setUp(file: string): Promise<Store> {
  const store = openSqliteStore(file);
  await store.insertUser(user({ id: 'usr_1' }));
  await store.insertProject(project('usr_1', { id: 'prj_1', name: 'p', slug: 'fts-merge' }));
  return store;
}

/** The FTS5 index's segment count: one or more `%_idx` rows per segment, each with its segment id. */
const segments = (db: Database.Database) => db.prepare('SELECT count(DISTINCT segid) FROM entries_fts_idx').pluck().get() as number;
const queued = (db: Database.Database) => db.prepare('SELECT count(*) FROM fts_pending').pluck().get() as number;
const until = async (cond: () => boolean, ms = 8000) => {
  for (let t = 0; t < ms && !cond(); t += 20) await new Promise((r) => setTimeout(r, 20));
  expect(cond()).toBe(true);
};
const RUNS = 24;

describe('SQLite search index merges', () => {
  it('runs with automerge off; the checkpoint worker merges the runs’ segments, and every entry is found', async () => {
    const file = join(dir, 'worker.db');
    const store = await setUp(file);
    const peek = new Database(file, { readonly: true });
    expect(peek.prepare(`SELECT v FROM entries_fts_config WHERE k = 'automerge'`).pluck().get()).toBe(0);
    // One indexing run per entry: each adds a segment of its own.
    for (let i = 1; i <= RUNS; i++) {
      await store.insertEntry(entry(i), 'key_x');
      await until(() => queued(peek) === 0);
    }
    // The worker wakes after commits and once a second; merged, at most 3 segments are left per level.
    await until(() => segments(peek) <= 3);
    const rw = new Database(file);
    expect(() => rw.prepare(`INSERT INTO entries_fts(entries_fts) VALUES('integrity-check')`).run()).not.toThrow();
    rw.close();
    const found = await store.listEntries('prj_1', { offset: 0, limit: 100 }, 'merge3.example');
    expect(found.total).toBe(Array.from({ length: RUNS }, (_, i) => i + 1).filter((i) => i % 7 === 3).length);
    expect((await store.listEntries('prj_1', { offset: 0, limit: 100 }, 'person17@')).rows.map((r) => r.id)).toEqual(['ent_0017']);
    peek.close();
    await store.close();
  });

  it('without a worker, each run merges a bounded step itself', async () => {
    const file = join(dir, 'alone.db');
    await (await setUp(file)).close();
    const db = new Database(file);
    const fts = new FtsIndexer(db, () => false);
    const insert = db.prepare(
      `INSERT INTO entries (id, project_id, email, email_norm, name, source, metadata, created_at, updated_at, status, ordinal, k,
         referral_code, referrals, fields)
       VALUES (?, 'prj_1', ?, ?, ?, 's', '{}', 1, 1, 'waiting', ?, ?, ?, 0, '{}')`,
    );
    let most = 0;
    for (let i = 1; i <= RUNS; i++) {
      const e = entry(i);
      insert.run(e.id, e.email, e.emailNorm, e.name, i, i, `code${i}`);
      fts.indexNow();
      expect(queued(db)).toBe(0);
      most = Math.max(most, segments(db));
    }
    fts.close();
    // 'merge' acts once a level holds 4 segments: never more than 4 on a level here.
    expect(most).toBeLessThanOrEqual(4);
    expect(() => db.prepare(`INSERT INTO entries_fts(entries_fts) VALUES('integrity-check')`).run()).not.toThrow();
    const hits = db.prepare(`SELECT count(*) FROM entries_fts WHERE entries_fts MATCH '"merge3.example"'`).pluck().get();
    expect(hits).toBe(Array.from({ length: RUNS }, (_, i) => i + 1).filter((i) => i % 7 === 3).length);
    db.close();
  });
});
