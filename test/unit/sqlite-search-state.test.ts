// The SQLite structures kept by triggers: live counts per project, the narrow search rows and the
// rowid-order flag that lets search pages walk rowids.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { EntryRow } from '../../src/db/store.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LIFECYCLE = {
  status: 'waiting',
  ordinal: 0,
  k: 0,
  referralCode: null,
  referredBy: null,
  referrals: 0,
  statusTokenHash: null,
  confirmTokenHash: null,
  confirmSentAt: null,
  confirmResentAt: null,
  confirmedAt: null,
  invitedAt: null,
  acceptedAt: null,
  inviteCodeHash: null,
  inviteExpiresAt: null,
} as const;
const entry = (id: string, email: string, projectId = 'prj_1'): EntryRow => ({
  id,
  projectId,
  email,
  emailNorm: email,
  name: `Name ${email}`,
  source: 's',
  metadata: '{}',
  ip: null,
  country: null,
  userAgent: null,
  createdAt: 1,
  updatedAt: 1,
  deletedAt: null,
  ...LIFECYCLE,
});

describe('SQLite search state', () => {
  it('keeps counts, search rows and the rowid-order flag in step with entries', async () => {
    const file = join(dir, 'state.db');
    const store = openSqliteStore(file);
    await store.insertUser({
      id: 'usr_1',
      email: 'o@x.io',
      emailNorm: 'o@x.io',
      name: null,
      passwordHash: 'h',
      createdAt: 1,
      updatedAt: 1,
    });
    for (const id of ['prj_1', 'prj_2']) {
      await store.insertProject({
        id,
        userId: 'usr_1',
        name: id,
        slug: `slug-${id.slice(4)}x`,
        createdAt: 1,
        updatedAt: 1,
        deletedAt: null,
        allowedOrigins: null,
        blockDisposable: false,
        honeypotField: null,
        settings: '{}',
      });
    }
    const peek = new Database(file, { readonly: true });
    const state = () => ({
      counts: Object.fromEntries(peek.prepare('SELECT project_id, live FROM entry_counts').raw().all() as [string, number][]),
      search: peek.prepare('SELECT count(*) FROM entries_search').pluck().get(),
      ordered: peek.prepare(`SELECT v FROM search_state WHERE k = 'rowid_order'`).pluck().get(),
    });

    await Promise.all(
      [entry('ent_02', 'b@x.io'), entry('ent_03', 'c@x.io'), entry('ent_04', 'd@x.io', 'prj_2')].map((e) =>
        store.insertEntry(e, 'key_x').catch(() => 'fk'),
      ),
    );
    expect(state()).toEqual({ counts: { prj_1: 2, prj_2: 1 }, search: 3, ordered: 1 });
    expect(await store.insertEntry(entry('ent_05', 'B@x.io'.toLowerCase()), 'key_x')).toBe('duplicate');

    await store.softDeleteEntry('prj_1', 'ent_02', 2);
    expect(state()).toMatchObject({ counts: { prj_1: 1, prj_2: 1 }, search: 2 });
    expect((await store.listEntries('prj_1', { offset: 0, limit: 10 }, 'b@x')).total).toBe(0);
    await store.updateEntry('prj_1', 'ent_03', { name: 'Zoë' }, 3);
    expect((await store.listEntries('prj_1', { offset: 0, limit: 10 }, 'ZOË')).rows.map((r) => r.id)).toEqual(['ent_03']);
    expect(state()).toMatchObject({ counts: { prj_1: 1, prj_2: 1 }, search: 2, ordered: 1 });

    // An id older than the newest one breaks "rowid order = id order": searches must sort by id.
    await store.insertEntry(entry('ent_01', 'a@x.io'), 'key_x');
    expect(state()).toMatchObject({ counts: { prj_1: 2, prj_2: 1 }, ordered: 0 });
    const page = await store.listEntries('prj_1', { offset: 0, limit: 10 }, 'x.io');
    expect(page.rows.map((r) => r.id)).toEqual(['ent_03', 'ent_01']);
    peek.close();
    await store.close();
  });

  it('bulk import keeps search, counts, queue buckets and the order flag exact per batch, and rolls back whole', async () => {
    const file = join(dir, 'import.db');
    const store = openSqliteStore(file);
    await store.insertUser({
      id: 'usr_1',
      email: 'o@x.io',
      emailNorm: 'o@x.io',
      name: null,
      passwordHash: 'h',
      createdAt: 1,
      updatedAt: 1,
    });
    for (const id of ['prj_1', 'prj_2'])
      await store.insertProject({
        id,
        userId: 'usr_1',
        name: id,
        slug: `imp-${id.slice(4)}x`,
        createdAt: 1,
        updatedAt: 1,
        deletedAt: null,
        allowedOrigins: null,
        blockDisposable: false,
        honeypotField: null,
        settings: '{}',
      });
    const peek = new Database(file, { readonly: true });
    const q = (sql: string) => peek.prepare(sql).raw().all();
    // Every derived table against a recount from `entries` (what the per-row triggers would have kept).
    const expectExact = () => {
      expect(q('SELECT project_id, live FROM entry_counts WHERE live > 0 ORDER BY 1')).toEqual(
        q('SELECT project_id, count(*) FROM entries WHERE deleted_at IS NULL GROUP BY 1 ORDER BY 1'),
      );
      expect(q('SELECT rid, project_id, email, name FROM entries_search ORDER BY 1')).toEqual(
        q('SELECT rowid, project_id, email, name FROM entries WHERE deleted_at IS NULL ORDER BY 1'),
      );
      expect(q('SELECT project_id, bucket, n FROM position_buckets WHERE n > 0 ORDER BY 1, 2')).toEqual(
        q(`SELECT project_id, k >> 10, count(*) FROM entries WHERE status = 'waiting' AND deleted_at IS NULL GROUP BY 1, 2 ORDER BY 1, 2`),
      );
      const check = new Database(file);
      check.prepare(`INSERT INTO entries_fts(entries_fts, rank) VALUES ('integrity-check', 1)`).run(); // throws when out of step
      check.close();
      expect(q(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'entries' ORDER BY 1`).flat()).toEqual(
        expect.arrayContaining(['entries_live_ai', 'entries_order_ai', 'entries_queue_ai']),
      );
    };
    const ordered = () => peek.prepare(`SELECT v FROM search_state WHERE k = 'rowid_order'`).pluck().get();
    const id = (i: number) => `ent_${String(i).padStart(6, '0')}`;

    await store.insertEntry(entry(id(1), 'first@x.io'), 'key_x');
    // 2,500 rows (three batches' worth in two calls), one of them already on the list, one twice in a batch,
    // some invited (not in the queue buckets); 1,100 of them cross a 1,024-wide bucket boundary.
    const rows = Array.from({ length: 2500 }, (_, i) => ({
      ...entry(id(i + 10), `imp${i}@x.io`),
      name: i % 3 ? `Grace ${i}` : null,
      status: (i % 10 === 0 ? 'invited' : 'waiting') as EntryRow['status'],
    }));
    rows[5] = { ...rows[5]!, email: 'first@x.io', emailNorm: 'first@x.io' };
    rows[7] = { ...rows[7]!, email: 'imp6@x.io', emailNorm: 'imp6@x.io' };
    expect(await store.importEntries(rows.slice(0, 1500))).toBe(1498);
    expect(await store.importEntries(rows.slice(1500))).toBe(1000);
    expectExact();
    expect(ordered()).toBe(1);
    expect((await store.listEntries('prj_1', { offset: 0, limit: 5 }, 'imp2499')).rows.map((r) => r.id)).toEqual([id(2509)]);
    expect((await store.listEntries('prj_1', { offset: 0, limit: 5 }, 'grace 1234')).total).toBe(1);

    // The triggers are back: a join after the import is counted and searchable as before.
    await store.insertEntry(entry(id(9000), 'late@x.io', 'prj_2'), 'key_x');
    expectExact();
    expect((await store.listEntries('prj_2', { offset: 0, limit: 5 }, 'late@')).total).toBe(1);

    // A batch that fails half-way (a row for a project that does not exist) leaves nothing behind.
    const before = q('SELECT count(*) FROM entries');
    await expect(store.importEntries([entry(id(9100), 'ok@x.io'), entry(id(9101), 'bad@x.io', 'prj_none')])).rejects.toThrow();
    expect(q('SELECT count(*) FROM entries')).toEqual(before);
    expectExact();

    // Ids older than the newest one: the flag drops, as a join with such an id would make it.
    expect(await store.importEntries([entry('ent_000002', 'old@x.io', 'prj_2')])).toBe(1);
    expect(ordered()).toBe(0);
    expectExact();
    peek.close();
    await store.close();
  });
});
