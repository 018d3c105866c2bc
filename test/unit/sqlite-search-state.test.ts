// The SQLite structures kept by triggers: live counts per project, the narrow search rows and the
// rowid-order flag that lets search pages walk rowids.
import Database from 'better-sqlite3';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
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

const USER = { id: 'usr_1', email: 'o@x.io', emailNorm: 'o@x.io', name: null, passwordHash: 'h', createdAt: 1, updatedAt: 1 };
const project = (id: string) => ({
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

describe('SQLite search state', () => {
  it('keeps counts, search rows and the rowid-order flag in step with entries', async () => {
    const file = join(dir, 'state.db');
    const store = openSqliteStore(file);
    await store.insertUser(USER);
    for (const id of ['prj_1', 'prj_2']) await store.insertProject(project(id));
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

  // Search keys start with the project's number (migrations/sqlite/0010_search.sql): a search reads
  // only its project's key range, so its total must count exactly that project's live matches.
  it('counts and pages only the matches of its own project, for every needle length and after writes', async () => {
    const file = join(dir, 'projects.db');
    const store = openSqliteStore(file);
    await store.insertUser(USER);
    for (const id of ['prj_a', 'prj_b', 'prj_c']) await store.insertProject(project(id));
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
    await store.insertProject(project('prj_d'));
    await store.insertEntry(entry('ent_d01', 'john@d.io', 'prj_d'), 'key_x');
    expect((await search('prj_d', 'john')).rows.map((r) => r.id)).toEqual(['ent_d01']);
    expect((await search('prj_a', 'john')).total).toBe(30);
    await store.close();
  });

  it('0010_search migrates a database that already has entries in several projects', async () => {
    // A database migrated up to the migration before 0010_search, with entries in two projects.
    const folder = resolve(import.meta.dirname, '../../migrations/sqlite');
    const old = join(dir, 'old-migrations');
    mkdirSync(join(old, 'meta'), { recursive: true });
    const journal = JSON.parse(readFileSync(join(folder, 'meta/_journal.json'), 'utf8'));
    const at = journal.entries.findIndex((e: { tag: string }) => e.tag === '0010_search');
    expect(at).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, at);
    writeFileSync(join(old, 'meta/_journal.json'), JSON.stringify(journal));
    for (const e of journal.entries) cpSync(join(folder, `${e.tag}.sql`), join(old, `${e.tag}.sql`));
    const file = join(dir, 'old.db');
    const raw = new Database(file);
    migrate(drizzle(raw), { migrationsFolder: old });
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
});
