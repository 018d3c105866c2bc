// An import not in date order is renumbered at its end in steps (src/db/sqlite/reorder.ts): other work
// gets turns of the event loop between them, the import's rows end up in date order with the ordinals
// they had, and a reorder cut short (a crash between two steps, when some rows share an ordinal) is
// finished by the next store to open the file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/index.js';
import { BOOST_SQL } from '../../src/db/sqlite/lifecycle.js';
import { recordPlan, reorderSteps } from '../../src/db/sqlite/reorder.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { entry as entryRow, projectWithKeyIn } from '../store/conformance.js';
import { turnsDuring } from '../helpers/turns.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-reorder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 12_000; // three batches of 4,000, so three transactions of moves
const T0 = Date.UTC(2024, 0, 1);
const sqliteOf = (store: Store) => (store as unknown as { sqlite: Database.Database }).sqlite;

/** A project with an entry, then N imported rows newest first (each batch sorted by date, as run.ts does). */
async function importedNewestFirst(store: Store) {
  const { p, k } = await projectWithKeyIn(store);
  await store.insertEntry(entryRow(p.id), k.id);
  const rows = Array.from({ length: N }, (_, j) => entryRow(p.id, { createdAt: T0 + (N - j) * 1000 }));
  const ranges: [number, number][] = [];
  for (let b = 0; b < N; b += 4_000) {
    const batch = rows.slice(b, b + 4_000).sort((x, y) => x.createdAt - y.createdAt);
    const { inserted, first } = await store.importEntries(batch);
    ranges.push([first, first + inserted - 1]);
  }
  return { projectId: p.id, ranges };
}

/** The import's rows are in date order, with the ordinals 2…N+1, each once; the queue buckets agree. */
function expectInDateOrder(db: Database.Database, projectId: string) {
  const rows = db.prepare('SELECT ordinal, k, created_at AS c FROM entries WHERE project_id = ? ORDER BY ordinal').all(projectId) as {
    ordinal: number;
    k: number;
    c: number;
  }[];
  expect(rows.map((r) => r.ordinal)).toEqual(Array.from({ length: N + 1 }, (_, i) => i + 1));
  expect(rows.every((r) => r.k === r.ordinal)).toBe(true);
  for (let i = 2; i < rows.length; i++) expect(rows[i]!.c).toBeGreaterThan(rows[i - 1]!.c);
  const buckets = db.prepare('SELECT sum(n) FROM position_buckets WHERE project_id = ?').pluck().get(projectId);
  expect(buckets).toBe(N + 1);
  expect(db.prepare('SELECT count(*) FROM import_reorders').pluck().get()).toBe(0);
}

describe('the reorder at the end of an import (SQLite)', () => {
  it('gives other work turns of the event loop, and leaves the rows in date order', async () => {
    const store = openSqliteStore(join(dir, 'steps.db'));
    const { projectId, ranges } = await importedNewestFirst(store);
    let moved = 0;
    const turns = await turnsDuring(async () => {
      moved = await store.lifecycle.orderImported(projectId, ranges);
    });
    expect(moved).toBe(8_000); // the middle batch is in its place already
    expect(turns).toBeGreaterThanOrEqual(4); // a read, the sort, and between the three transactions
    expectInDateOrder(sqliteOf(store), projectId);
    await store.close();
  });

  it('cut short between two transactions, is finished by the next store to open the file', async () => {
    const file = join(dir, 'crash.db');
    const store = openSqliteStore(file);
    const { projectId, ranges } = await importedNewestFirst(store);
    const db = sqliteOf(store);
    const planId = recordPlan(db, projectId, ranges);
    const steps = reorderSteps(db, projectId, ranges, planId, BOOST_SQL);
    // Every read, then the first of the three transactions of moves only: the crash comes before the second.
    for (let r = steps.next(); !r.done; r = steps.next()) {
      if (r.value) {
        db.transaction(r.value).immediate();
        break;
      }
    }
    const shared = db.prepare('SELECT count(*) - count(DISTINCT ordinal) FROM entries WHERE project_id = ?').pluck();
    expect(shared.get(projectId)).toBeGreaterThan(0); // some rows share an ordinal now
    expect(db.prepare('SELECT count(*) FROM import_reorders').pluck().get()).toBe(1);
    await store.close();

    const reopened = openSqliteStore(file);
    expectInDateOrder(sqliteOf(reopened), projectId);
    await reopened.close();
  });
});
