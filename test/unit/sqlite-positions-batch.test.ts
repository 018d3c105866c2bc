// Positions of many rows at once (list pages sorted by position, export chunks) are ranked per bucket
// (SqliteLifecycle.rankByBucket); one row at a time they are counted (positionSync). Both must give the
// same exact position for every entry, with referrals spreading k over many 1024-wide buckets, ties of
// k broken by ordinal, and entries that are not waiting left out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { EntryRow } from '../../src/db/store.js';
import { entry, project, user } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-positions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite positions of many rows', () => {
  it('ranked per bucket equal counted one by one, for every entry', async () => {
    const store = openSqliteStore(join(dir, 'p.db'));
    const u = user();
    await store.insertUser(u);
    // referralBoost 700: each credit moves the referrer most of a bucket ahead.
    const p = project(u.id, { settings: '{"referralBoost":700}' });
    await store.insertProject(p);
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const ids: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const referredBy = ids.length > 10 && rand(4) === 0 ? ids[rand(Math.min(ids.length, 50))]! : null;
      const row = entry(p.id, { referredBy, status: rand(10) === 0 ? 'invited' : 'waiting' });
      expect(await store.insertEntry(row, 'key_x')).toBe('inserted');
      ids.push(row.id);
    }
    const rows = (await store.entriesBefore(p.id, null, 5000)) as EntryRow[];
    expect(rows).toHaveLength(3000);
    const buckets = new Set(rows.filter((r) => r.status === 'waiting').map((r) => Math.floor(r.k / 1024)));
    expect(buckets.size).toBeGreaterThan(3); // k really spread over several buckets, below zero too
    expect(Math.min(...rows.map((r) => r.k))).toBeLessThan(0);

    const together = await store.lifecycle.positions(p.id, rows);
    const oneByOne = new Map<string, number>();
    for (const r of rows) for (const [id, pos] of await store.lifecycle.positions(p.id, [r])) oneByOne.set(id, pos);
    expect(together.size).toBe(rows.filter((r) => r.status === 'waiting').length);
    expect(together).toEqual(oneByOne);
    // And both are the queue order: positions 1..n over the waiting entries sorted by (k, ordinal).
    const queue = rows.filter((r) => r.status === 'waiting').sort((a, b) => a.k - b.k || a.ordinal - b.ordinal);
    expect(queue.map((r) => together.get(r.id))).toEqual(queue.map((_, i) => i + 1));
    // A page of rows from the middle (not starting at the first bucket) gives the same answers.
    const page = rows.slice(1200, 1300);
    const pagePositions = await store.lifecycle.positions(p.id, page);
    for (const [id, pos] of pagePositions) expect(pos).toBe(oneByOne.get(id));
    await store.close();
  });
});
