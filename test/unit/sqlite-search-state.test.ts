// The SQLite structures kept by triggers: live counts per project, the narrow search rows and the
// rowid-order flag that lets search pages walk rowids.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { EntryRow } from '../../src/db/store.js';
import { migratedBefore } from '../helpers/sqlite-migrations.js';
import { entry as entryRow, project, user } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An entry row for the store (the conformance suite's builder), created at time 1. */
const entry = (id: string, email: string, projectId = 'prj_1'): EntryRow =>
  entryRow(projectId, { id, email, emailNorm: email, name: `Name ${email}`, source: 's', createdAt: 1, updatedAt: 1 });

const USER = user({ id: 'usr_1', email: 'o@x.io', emailNorm: 'o@x.io', createdAt: 1, updatedAt: 1 });
/** A project of usr_1 (the conformance suite's builder) with a slug derived from its id. */
const projectOf = (id: string) => project('usr_1', { id, name: id, slug: `slug-${id.slice(4)}x`, createdAt: 1, updatedAt: 1 });

describe('SQLite search state', () => {
  it('keeps counts, search rows and the rowid-order flag in step with entries', async () => {
    const file = join(dir, 'state.db');
    const store = openSqliteStore(file);
    await store.insertUser(USER);
    for (const id of ['prj_1', 'prj_2']) await store.insertProject(projectOf(id));
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

  // Search keys start with the project's number (migrations/sqlite/0008_search.sql): a search reads
  // only its project's key range, so its total must count exactly that project's live matches.
  it('counts and pages only the matches of its own project, for every needle length and after writes', async () => {
    const file = join(dir, 'projects.db');
    const store = openSqliteStore(file);
    await store.insertUser(USER);
    for (const id of ['prj_a', 'prj_b', 'prj_c']) await store.insertProject(projectOf(id));
    // Interleaved inserts: the projects' rowids alternate, as with concurrent joins.
    for (let i = 0; i < 30; i++) {
      await store.insertEntry(entry(`ent_a${String(i).padStart(2, '0')}`, `john${i}@a.io`, 'prj_a'), 'key_x');
      if (i % 3 === 0) await store.insertEntry(entry(`ent_b${String(i).padStart(2, '0')}`, `john${i}@b.io`, 'prj_b'), 'key_x');
    }
    const search = async (projectId: string, q: string, offset = 0, limit = 50) => store.listEntries(projectId, { offset, limit }, q);
    for (const q of ['john', 'jo', 'j', 'OHN1']) {
      const a = await search('prj_a', q);
      const b = await search('prj_b', q);
      expect(a.rows.every((r) => r.projectId === 'prj_a')).toBe(true);
      expect(b.rows.every((r) => r.projectId === 'prj_b')).toBe(true);
      expect([a.total, b.total]).toEqual(q === 'OHN1' ? [11, 3] : [30, 10]);
      expect(a.rows.length).toBe(a.total);
      expect((await store.entriesBefore('prj_b', null, 50, q)).map((r) => r.id)).toEqual(b.rows.map((r) => r.id));
    }
    expect((await search('prj_a', 'john', 25, 10)).rows.map((r) => r.id)).toEqual(['ent_a04', 'ent_a03', 'ent_a02', 'ent_a01', 'ent_a00']);
    expect(await search('prj_c', 'john')).toEqual({ rows: [], total: 0 });
    expect(await search('prj_unknown', 'john')).toEqual({ rows: [], total: 0 });

    await store.softDeleteEntry('prj_b', 'ent_b03', 2);
    await store.updateEntry('prj_a', 'ent_a05', { name: 'Zoë Unique' }, 3);
    expect((await search('prj_b', 'john')).total).toBe(9);
    expect((await search('prj_a', 'zoë unique')).rows.map((r) => r.id)).toEqual(['ent_a05']);
    expect((await search('prj_b', 'zoë unique')).total).toBe(0);
    // A project created after the migration gets its own range too.
    await store.insertProject(projectOf('prj_d'));
    await store.insertEntry(entry('ent_d01', 'john@d.io', 'prj_d'), 'key_x');
    expect((await search('prj_d', 'john')).rows.map((r) => r.id)).toEqual(['ent_d01']);
    expect((await search('prj_a', 'john')).total).toBe(30);
    await store.close();
  });

  it('0008_search migrates a database that already has entries in several projects', async () => {
    // A database migrated up to the migration before 0008_search, with entries in two projects.
    const file = join(dir, 'old.db');
    const raw = migratedBefore('0008_search', file, dir);
    expect(raw.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'search_projects'`).pluck().get()).toBe(0);
    raw.exec(`INSERT INTO users (id, email, email_norm, password_hash, created_at, updated_at) VALUES ('usr_1', 'o@x.io', 'o@x.io', 'h', 1, 1);
      INSERT INTO projects (id, user_id, name, slug, created_at, updated_at) VALUES
        ('prj_a', 'usr_1', 'a', 'slug-a', 1, 1), ('prj_b', 'usr_1', 'b', 'slug-b', 1, 1);`);
    const add = raw.prepare(
      `INSERT INTO entries (id, project_id, email, email_norm, source, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, 's', '{}', 1, 1)`,
    );
    for (let i = 0; i < 12; i++) {
      const email = `smith${i}@x.io`;
      add.run(`ent_${String(i).padStart(2, '0')}`, i % 4 ? 'prj_a' : 'prj_b', email, email);
    }
    raw.prepare(`UPDATE entries SET deleted_at = 2 WHERE id = 'ent_01'`).run();
    raw.close();

    const store = openSqliteStore(file);
    expect((await store.listEntries('prj_a', { offset: 0, limit: 50 }, 'smith')).total).toBe(8);
    expect((await store.listEntries('prj_b', { offset: 0, limit: 50 }, 'smith')).rows.map((r) => r.id)).toEqual([
      'ent_08',
      'ent_04',
      'ent_00',
    ]);
    expect((await store.listEntries('prj_a', { offset: 0, limit: 50 }, 'h1')).rows.map((r) => r.id)).toEqual(['ent_11', 'ent_10']);
    await store.insertEntry(entry('ent_12', 'smith12@x.io', 'prj_b'), 'key_x');
    expect((await store.listEntries('prj_b', { offset: 0, limit: 50 }, 'smith')).total).toBe(4);
    await store.close();
  });

  it('bulk import keeps search, counts, queue buckets and the order flag exact per batch, and rolls back whole', async () => {
    const file = join(dir, 'import.db');
    const store = openSqliteStore(file);
    await store.insertUser(USER);
    for (const id of ['prj_1', 'prj_2']) await store.insertProject(projectOf(id));
    const peek = new Database(file, { readonly: true });
    const q = (sql: string) => peek.prepare(sql).raw().all();
    // Every derived table against a recount from `entries` (what the per-row triggers would have kept).
    const expectExact = async () => {
      expect(q('SELECT project_id, live FROM entry_counts WHERE live > 0 ORDER BY 1')).toEqual(
        q('SELECT project_id, count(*) FROM entries WHERE deleted_at IS NULL GROUP BY 1 ORDER BY 1'),
      );
      expect(q('SELECT sk, email, name FROM entries_search ORDER BY 1')).toEqual(
        q(`SELECT (p.n << 40) + e.rowid, e.email, e.name FROM entries e JOIN search_projects p ON p.project_id = e.project_id
           WHERE e.deleted_at IS NULL ORDER BY 1`),
      );
      expect(q('SELECT project_id, bucket, n FROM position_buckets WHERE n > 0 ORDER BY 1, 2')).toEqual(
        q(`SELECT project_id, k >> 10, count(*) FROM entries WHERE status = 'waiting' AND deleted_at IS NULL GROUP BY 1, 2 ORDER BY 1, 2`),
      );
      // The FTS index holds every search row but those a join queued (fts_pending), which the indexer
      // takes within moments: wait for it, then the whole index must match its content table.
      for (let i = 0; i < 200 && (peek.prepare('SELECT count(*) FROM fts_pending').pluck().get() as number) > 0; i++)
        await new Promise((r) => setTimeout(r, 10));
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
    expect((await store.importEntries(rows.slice(0, 1500))).inserted).toBe(1498);
    expect((await store.importEntries(rows.slice(1500))).inserted).toBe(1000);
    await expectExact();
    expect(ordered()).toBe(1);
    expect((await store.listEntries('prj_1', { offset: 0, limit: 5 }, 'imp2499')).rows.map((r) => r.id)).toEqual([id(2509)]);
    expect((await store.listEntries('prj_1', { offset: 0, limit: 5 }, 'grace 1234')).total).toBe(1);

    // The triggers are back: a join after the import is counted and searchable as before.
    await store.insertEntry(entry(id(9000), 'late@x.io', 'prj_2'), 'key_x');
    await expectExact();
    expect((await store.listEntries('prj_2', { offset: 0, limit: 5 }, 'late@')).total).toBe(1);

    // A batch that fails half-way (a row for a project that does not exist) leaves nothing behind.
    const before = q('SELECT count(*) FROM entries');
    await expect(store.importEntries([entry(id(9100), 'ok@x.io'), entry(id(9101), 'bad@x.io', 'prj_none')])).rejects.toThrow();
    expect(q('SELECT count(*) FROM entries')).toEqual(before);
    await expectExact();

    // Ids older than the newest one: the flag drops, as a join with such an id would make it.
    expect((await store.importEntries([entry('ent_000002', 'old@x.io', 'prj_2')])).inserted).toBe(1);
    expect(ordered()).toBe(0);
    await expectExact();
    peek.close();
    await store.close();
  });
});
