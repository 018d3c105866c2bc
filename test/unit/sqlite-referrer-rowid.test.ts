// A join's `ref` lookup (SqliteLifecycle.referrerId) remembers the referrer's rowid, and the join batch
// credits the referrer through the table's key instead of the id index. The rowid is only a hint: the
// credit must land on the right entry when the hint is stale (the row moved to another rowid, as a
// rebuild by another process can do), must not land when the referrer left the queue after the
// lookup, and must never touch another entry that took over the old rowid.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EntryRow } from '../../src/db/store.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { entry, project, user } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-refrowid-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function setUp(name: string) {
  const file = join(dir, `${name}.db`);
  const store = openSqliteStore(file);
  const u = user();
  await store.insertUser(u);
  const p = project(u.id, { settings: JSON.stringify({ referralBoost: 3 }) });
  await store.insertProject(p);
  const add = async (over: Partial<EntryRow> = {}) => {
    const row = entry(p.id, over);
    expect(await store.insertEntry(row, 'key_x')).toBe('inserted');
    return row;
  };
  const lookup = (code: string) => store.lifecycle.referrerId!(p.id, code);
  const get = async (id: string) => (await store.entryInProject(p.id, id))!;
  return { file, store, p, add, lookup, get };
}

describe('SQLite referral credit by rowid', () => {
  it('credits through the hint, and through the id when the row moved after the lookup', async () => {
    const { file, store, add, lookup, get } = await setUp('moved');
    const referrer = await add({ referralCode: 'code-a' });
    for (let i = 0; i < 5; i++) await add();

    // The usual path: lookup, then the referred join's batch.
    expect(await lookup('code-a')).toBe(referrer.id);
    await add({ referredBy: referrer.id });
    expect((await get(referrer.id)).referrals).toBe(1);

    // The row moves to another rowid between the lookup and the batch; an entry that is not the
    // referrer takes its old rowid.
    expect(await lookup('code-a')).toBe(referrer.id);
    const other = new Database(file);
    const old = other.prepare('SELECT rowid FROM entries WHERE id = ?').pluck().get(referrer.id) as number;
    other.prepare('UPDATE entries SET rowid = 1000000 WHERE id = ?').run(referrer.id);
    const bystander = await add();
    other.prepare('UPDATE entries SET rowid = ? WHERE id = ?').run(old, bystander.id);
    // What docs/performance.md ("Operating notes") asks after rowids changed: rebuild the search keys.
    other.exec(`DELETE FROM entries_search; DELETE FROM fts_pending;
      INSERT INTO entries_search(sk, email, name) SELECT (s.n << 40) + e.rowid, e.email, e.name
        FROM entries e JOIN search_projects s ON s.project_id = e.project_id WHERE e.deleted_at IS NULL;
      INSERT INTO entries_fts(entries_fts) VALUES('rebuild');`);
    other.close();
    await add({ referredBy: referrer.id });
    const after = await get(referrer.id);
    expect(after.referrals).toBe(2);
    expect(after.k).toBe(after.ordinal - 2 * 3);
    expect((await get(bystander.id)).referrals).toBe(0);
    await store.close();
  });

  it('does not credit a referrer that left the queue after the lookup', async () => {
    const { file, store, p, add, lookup, get } = await setUp('left');
    const referrer = await add({ referralCode: 'code-b' });
    const neighbour = await add({ referralCode: 'code-c' });
    expect(await lookup('code-b')).toBe(referrer.id);
    await store.lifecycle.softDelete(p.id, referrer.id, Date.now(), 3);
    await add({ referredBy: referrer.id });
    const db = new Database(file, { readonly: true }); // the soft-deleted row too, which the API no longer shows
    const rows = db.prepare('SELECT id, referrals FROM entries WHERE id IN (?, ?)').all(referrer.id, neighbour.id) as {
      id: string;
      referrals: number;
    }[];
    db.close();
    expect(Object.fromEntries(rows.map((r) => [r.id, r.referrals]))).toEqual({ [referrer.id]: 0, [neighbour.id]: 0 });
    expect((await get(neighbour.id)).referrals).toBe(0);
    await store.close();
  });
});
