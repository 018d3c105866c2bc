// WAL checkpoints run on the store's worker thread (src/db/sqlite/checkpointer.ts), not in the join
// path's commits: after join batches and a short pause the whole log has been copied back into the
// database file although the server's own connection would not checkpoint before 10,000 pages; closing
// the store stops the worker first, so the last connection's close removes the log; the data is there.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { FALLBACK_PAGES } from '../../src/db/sqlite/checkpointer.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { entry as entryRow, key as keyRow, project as projectRow, user } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-ckpt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The WAL index (-shm): frames in the log (mxFrame) and frames already copied back (nBackfill). */
function walState(file: string) {
  const shm = readFileSync(`${file}-shm`);
  return { frames: shm.readUInt32LE(16), backfilled: shm.readUInt32LE(96) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SQLite checkpoints on a worker thread', () => {
  it('copies the log back after join commits, with the connection’s own checkpoint far off; close removes the log', async () => {
    const file = join(dir, 'w.db');
    const store = openSqliteStore(file);
    const owner = user();
    await store.insertUser(owner);
    const project = projectRow(owner.id);
    await store.insertProject(project);
    const key = keyRow(project.id);
    await store.insertKey(key);

    let frames = 0;
    for (let batch = 0; batch < 20; batch++) {
      const rows = Array.from({ length: 100 }, () => entryRow(project.id));
      const results = await Promise.all(rows.map((r) => store.insertEntry(r, key.id)));
      expect(results.every((r) => r === 'inserted')).toBe(true);
      frames = Math.max(frames, walState(file).frames);
    }
    expect(frames).toBeGreaterThan(0);
    expect(frames).toBeLessThan(FALLBACK_PAGES); // the connection never reached its own checkpoint

    // The worker catches up within a few of its wakes (commits, or once a second).
    let state = walState(file);
    for (let i = 0; i < 60 && state.backfilled < state.frames; i++) {
      await sleep(50);
      state = walState(file);
    }
    expect(state.backfilled).toBe(state.frames);

    await store.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM entries').pluck().get()).toBe(2000);
    db.close();
  });
});
