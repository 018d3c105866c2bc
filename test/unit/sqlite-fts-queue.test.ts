// The FTS index fed off the join path (migrations/sqlite/0009_join_path.sql, src/db/sqlite/fts-indexer.ts):
// a search right after a join's commit finds the entry while it is still queued, and again once
// indexed, exactly once; renames, deletes and erasure of queued and of indexed entries keep the index
// and the queue in step (a stale FTS row or a lost one shows up as a wrong search result here).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { EntryRow, Store } from '../../src/db/store.js';
import { entry as entryRow, project, user } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-fts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An entry of prj_1 (the conformance suite's builder), created at time 1. */
const entry = (id: string, email: string, name: string | null): EntryRow =>
  entryRow('prj_1', { id, email, emailNorm: email.toLowerCase(), name, source: 's', createdAt: 1, updatedAt: 1 });

async function setUp(file: string): Promise<Store> {
  const store = openSqliteStore(file);
  await store.insertUser(user({ id: 'usr_1' }));
  await store.insertProject(project('usr_1', { id: 'prj_1', name: 'p', slug: 'fts-queue' }));
  return store;
}

// The indexer runs on timers (25 ms after a batch, at start-up, every second while idle). They are
// faked, so "still queued" is not a race with a loaded machine (a CI run once saw the indexer win it),
// and `indexerRuns` lets its pending runs happen at a known point.
beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] }));
afterEach(() => vi.useRealTimers());
const indexerRuns = (cond: () => boolean) => {
  vi.advanceTimersByTime(2_000);
  expect(cond()).toBe(true);
};

describe('SQLite search index fed after commit', () => {
  it('finds a just-joined entry while queued and once indexed, and keeps index and queue in step', async () => {
    const file = join(dir, 'q.db');
    const store = await setUp(file);
    const peek = new Database(file, { readonly: true });
    const queued = () => peek.prepare('SELECT count(*) FROM fts_pending').pluck().get() as number;
    /** Ids the FTS index alone answers for a phrase (no queue): what was really indexed. */
    const indexed = (q: string) =>
      peek
        .prepare(
          `SELECT e.id FROM entries_fts f JOIN entries e ON e.rowid = (f.rowid & 1099511627775) WHERE entries_fts MATCH ? ORDER BY e.id`,
        )
        .pluck()
        .all(`"${q}"`);
    const search = async (q: string) => (await store.listEntries('prj_1', { offset: 0, limit: 10 }, q)).rows.map((r) => r.id);
    const total = async (q: string) => (await store.listEntries('prj_1', { offset: 0, limit: 10 }, q)).total;

    await Promise.all([
      store.insertEntry(entry('ent_01', 'anna@x.io', 'Zoë Ångström'), 'key_x'),
      store.insertEntry(entry('ent_02', 'bob@x.io', null), 'key_x'),
    ]);
    // Right after the commit: queued, not indexed, and found (case folded like the index: ZOË, åNGS).
    expect(queued()).toBe(2);
    expect(indexed('anna')).toEqual([]);
    expect(await search('anna@')).toEqual(['ent_01']);
    expect(await search('ZOË')).toEqual(['ent_01']);
    expect(await search('åNGS')).toEqual(['ent_01']);
    expect(await search('@x.io')).toEqual(['ent_02', 'ent_01']);
    expect(await total('@x.io')).toBe(2);
    expect(await search('nobody')).toEqual([]);

    indexerRuns(() => queued() === 0);
    expect(indexed('x.io')).toEqual(['ent_01', 'ent_02']);
    expect(await search('ZOË')).toEqual(['ent_01']);
    expect(await total('@x.io')).toBe(2); // once each, not once from the index and once from the queue

    // Renaming an indexed entry: it leaves the index (old name gone at once) and is queued again.
    await store.updateEntry('prj_1', 'ent_01', { name: 'Carla' }, 2);
    expect(indexed('x.io')).toEqual(['ent_02']);
    expect(await search('Zoë')).toEqual([]);
    expect(await search('CARL')).toEqual(['ent_01']);
    indexerRuns(() => queued() === 0);
    expect(indexed('carla')).toEqual(['ent_01']);
    expect(indexed('Zoë')).toEqual([]);

    // A queued entry deleted, and an indexed one deleted: neither is found; nothing stale in the index.
    await store.insertEntry(entry('ent_03', 'cleo@x.io', 'Cleo'), 'key_x');
    expect(queued()).toBe(1);
    await store.softDeleteEntry('prj_1', 'ent_03', 3);
    await store.softDeleteEntry('prj_1', 'ent_02', 3);
    expect(queued()).toBe(0);
    expect(await search('cleo')).toEqual([]);
    expect(await search('bob@')).toEqual([]);
    expect(indexed('x.io')).toEqual(['ent_01']);

    // Erasure (a real DELETE) of an indexed entry, then a new entry: the index matches the entries.
    await store.lifecycle.erase('prj_1', 'ent_01', 0);
    await store.insertEntry(entry('ent_04', 'dora@x.io', 'Dora'), 'key_x');
    expect(await search('x.io')).toEqual(['ent_04']);
    indexerRuns(() => queued() === 0);
    expect(indexed('x.io')).toEqual(['ent_04']);
    expect(await search('carla')).toEqual([]);
    peek.close();
    await store.close();
  });

  it('indexes at start-up what an earlier process left queued', async () => {
    const file = join(dir, 'restart.db');
    const store = await setUp(file);
    await store.insertEntry(entry('ent_01', 'eve@x.io', 'Eve'), 'key_x');
    await store.close(); // closed before its indexer ran: the entry stays queued in the file
    const peek = new Database(file, { readonly: true });
    expect(peek.prepare('SELECT count(*) FROM fts_pending').pluck().get()).toBe(1);
    const again = openSqliteStore(file);
    expect((await again.listEntries('prj_1', { offset: 0, limit: 10 }, 'eve@')).rows.map((r) => r.id)).toEqual(['ent_01']);
    indexerRuns(() => peek.prepare('SELECT count(*) FROM fts_pending').pluck().get() === 0);
    expect((await again.listEntries('prj_1', { offset: 0, limit: 10 }, 'eve@')).total).toBe(1);
    peek.close();
    await again.close();
  });
});
