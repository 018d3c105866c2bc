// position_buckets (waiting entries per 1024-wide range of k) is kept by triggers; the update trigger
// runs only when an entry's bucket, project or waiting state changes (0010_queue_trigger.sql), so a
// referral credit that keeps the referrer in its bucket writes no bucket row. Whatever the mix of
// credits that stay in a bucket or cross one, deletions, erasures and boost changes, the table must
// equal the counts recomputed from the entries.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { entry, project, user } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-buckets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite position buckets', () => {
  it.each([3, 700])('equal the recomputed counts after credits with referralBoost %i', async (boost) => {
    const file = join(dir, `b${boost}.db`);
    const store = openSqliteStore(file);
    const u = user();
    await store.insertUser(u);
    const p = project(u.id, { settings: JSON.stringify({ referralBoost: boost }) });
    await store.insertProject(p);
    let seed = boost;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor(seed / 65536) % n; // the high bits: the low ones of this generator cycle fast
    };
    const ids: string[] = [];
    for (let i = 0; i < 2500; i++) {
      // Referrers among the first 40 entries: many credits each, so some cross bucket edges and most do not.
      const referredBy = ids.length > 40 && rand(3) === 0 ? ids[rand(40)]! : null;
      const row = entry(p.id, { referredBy, status: rand(12) === 0 ? 'pending' : 'waiting' });
      expect(await store.insertEntry(row, 'key_x')).toBe('inserted');
      ids.push(row.id);
      if (i % 250 === 249) await store.lifecycle.softDelete(p.id, ids[rand(ids.length)]!, Date.now(), boost);
      if (i % 400 === 399) await store.lifecycle.erase(p.id, ids[rand(ids.length)]!, boost);
    }
    expect(await store.updateProjectSettings(p.id, { features: { referralBoost: boost + 1 } }, true)).toBeTruthy();
    await store.close();

    const db = new Database(file, { readonly: true });
    const kept = db.prepare('SELECT bucket, n FROM position_buckets WHERE project_id = ? AND n <> 0 ORDER BY bucket').all(p.id);
    const recomputed = db
      .prepare(
        `SELECT k >> 10 AS bucket, count(*) AS n FROM entries WHERE project_id = ? AND status = 'waiting' AND deleted_at IS NULL
         GROUP BY k >> 10 ORDER BY bucket`,
      )
      .all(p.id);
    const moved = db.prepare('SELECT count(*) FROM entries WHERE project_id = ? AND referrals > 0').pluck().get(p.id) as number;
    db.close();
    expect(moved).toBeGreaterThan(10);
    expect(recomputed.length).toBeGreaterThan(2);
    expect(kept).toEqual(recomputed);
  });
});
