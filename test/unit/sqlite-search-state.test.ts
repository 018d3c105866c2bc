// The SQLite structures kept by triggers: live counts per project, the narrow search rows and the
// rowid-order flag that lets search pages walk rowids.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { EntryRow } from '../../src/db/store.js';
import { entry as entryRow, project, user } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An entry row for the store (the conformance suite's builder), created at time 1. */
const entry = (id: string, email: string, projectId = 'prj_1'): EntryRow =>
  entryRow(projectId, { id, email, emailNorm: email, name: `Name ${email}`, source: 's', createdAt: 1, updatedAt: 1 });

describe('SQLite search state', () => {
  it('keeps counts, search rows and the rowid-order flag in step with entries', async () => {
    const file = join(dir, 'state.db');
    const store = openSqliteStore(file);
    await store.insertUser(user({ id: 'usr_1', email: 'o@x.io', emailNorm: 'o@x.io', createdAt: 1, updatedAt: 1 }));
    for (const id of ['prj_1', 'prj_2']) {
      await store.insertProject(project('usr_1', { id, name: id, slug: `slug-${id.slice(4)}x`, createdAt: 1, updatedAt: 1 }));
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
});
