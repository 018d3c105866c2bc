// A join batch's fsync off the event loop (src/db/sqlite/wal-sync.ts): every caller is answered only by
// an fdatasync of the log that started after its call; calls made while one runs share the next one; a
// failed fdatasync fails every later call; the store's joins wait for it and commit without one of their
// own, and after a failed one the store is not ready (ping); so do a confirm, an accept, a resent
// confirmation, a delete and an import batch;
// a database it cannot serve (in memory, not WAL) keeps fsyncing in COMMIT.
import { closeSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../src/db/errors.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { openWalSync, WalSync } from '../../src/db/sqlite/wal-sync.js';
import { entry as entryRow, projectWithKeyIn } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-walsync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A database file in WAL mode with something in its log; the connection stays open. */
function walDatabase(name: string) {
  const file = join(dir, name);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (x INTEGER)');
  db.prepare('INSERT INTO t VALUES (1)').run();
  return { file, db };
}

/**
 * Makes the log's next fdatasync fail (EBADF), as a disk error would: closes its descriptor and leaves a
 * number no open() returns in its place. The closed number itself could be handed to the next file the
 * process opens (the store's worker, SQLite), and an fdatasync of that file would succeed.
 */
function breakLog(ws: WalSync): void {
  const held = ws as unknown as { fd: number | undefined };
  closeSync(held.fd!);
  held.fd = 0x3fffffff;
}

/** Calls `sync()` and checks, when it resolves, that an fdatasync started after the call has completed. */
function checkedSync(ws: WalSync) {
  const startedBefore = ws.started;
  return ws.sync().then(() => {
    expect(ws.completed).toBeGreaterThan(startedBefore);
    return ws.completed;
  });
}

describe('WalSync', () => {
  it('answers each call with an fdatasync that started after it; a burst shares one', async () => {
    const { file, db } = walDatabase('burst.db');
    const ws = new WalSync(file);
    await checkedSync(ws);
    expect(ws.completed).toBe(1);
    // The first call of the burst starts an fdatasync at once; the 99 made while it runs wait for the next.
    const burst = await Promise.all(Array.from({ length: 100 }, () => checkedSync(ws)));
    expect(ws.completed).toBe(3);
    expect(burst[0]).toBe(2);
    expect(burst.slice(1).every((n) => n === 3)).toBe(true);
    // Calls spread over turns while fdatasyncs run: each still waits for one that started after it.
    const spread: Promise<number>[] = [];
    for (let i = 0; i < 20; i++) {
      spread.push(checkedSync(ws));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(spread);
    await ws.close();
    await expect(ws.sync()).rejects.toThrow(/closed/);
    db.close();
  });

  it('after a failed fdatasync, that call and every later one fail, without another attempt', async () => {
    const { file, db } = walDatabase('fail.db');
    const ws = new WalSync(file);
    await ws.sync();
    breakLog(ws);
    await expect(ws.sync()).rejects.toMatchObject({ code: 'EBADF' });
    const started = ws.started;
    await expect(ws.sync()).rejects.toMatchObject({ code: 'EBADF' });
    expect(ws.started).toBe(started);
    await ws.settled();
    db.close();
  });

  it('is not used for a database in memory or not in WAL mode; follows a symlinked file to its log', () => {
    const mem = new Database(':memory:');
    expect(openWalSync(mem, ':memory:')).toBeUndefined();
    const rollback = new Database(join(dir, 'rollback.db'));
    rollback.pragma('journal_mode = DELETE');
    expect(openWalSync(rollback, join(dir, 'rollback.db'))).toBeUndefined();
    mkdirSync(join(dir, 'real'));
    const { db } = walDatabase('real/target.db');
    symlinkSync(join(dir, 'real/target.db'), join(dir, 'link.db'));
    const linked = new Database(join(dir, 'link.db'));
    expect(openWalSync(linked, join(dir, 'link.db'))).toBeInstanceOf(WalSync);
    for (const d of [mem, rollback, db, linked]) d.close();
  });
});

describe('the SQLite store’s join batches', () => {
  it('commit without an fsync of their own and answer after the log’s fdatasync; a failed one is a 503', async () => {
    const file = join(dir, 'store.db');
    const store = openSqliteStore(file);
    const { p: project, k: key } = await projectWithKeyIn(store);
    const ws = (store as unknown as { walSync: WalSync }).walSync;
    expect(ws).toBeInstanceOf(WalSync);

    const before = ws.started;
    const results = await Promise.all(Array.from({ length: 50 }, () => store.insertEntry(entryRow(project.id), key.id)));
    expect(results.every((r) => r === 'inserted')).toBe(true);
    expect(ws.completed).toBeGreaterThan(before);
    // The connection is back to FULL for every other commit.
    const reader = new Database(file);
    expect((store as unknown as { sqlite: Database.Database }).sqlite.pragma('synchronous', { simple: true })).toBe(2);

    breakLog(ws);
    const lost = entryRow(project.id);
    await expect(store.insertEntry(lost, key.id)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    // Every later join is refused before it is written.
    const refused = entryRow(project.id);
    await expect(store.insertEntry(refused, key.id)).rejects.toThrow(/fsync of the database's log failed \(EBADF\)/);
    expect(reader.prepare('SELECT count(*) FROM entries WHERE id = ?').pluck().get(refused.id)).toBe(0);
    // Readiness (GET /readyz) says so until a restart.
    await expect(store.ping()).rejects.toThrow(/restart the server/);
    // Committed, never acknowledged: what a power cut could have taken back.
    expect(reader.prepare('SELECT count(*) FROM entries WHERE id = ?').pluck().get(lost.id)).toBe(1);
    reader.close();
    (ws as unknown as { fd: number | undefined }).fd = undefined;
    await store.close();
  });

  it('a confirm, an accept, a resent confirmation and a delete wait for it too', async () => {
    const file = join(dir, 'links.db');
    const store = openSqliteStore(file);
    const { p, k } = await projectWithKeyIn(store);
    const ws = (store as unknown as { walSync: WalSync }).walSync;
    const sqlite = (store as unknown as { sqlite: Database.Database }).sqlite;
    /** Runs one change and checks that an fdatasync started after it had completed when it resolved. */
    const checked = async <T>(change: () => Promise<T>) => {
      const before = ws.started;
      const result = await change();
      expect(ws.completed).toBeGreaterThan(before);
      expect(sqlite.pragma('synchronous', { simple: true })).toBe(2);
      return result;
    };
    const pending = entryRow(p.id, { status: 'pending' });
    expect(await store.insertEntry(pending, k.id)).toBe('inserted');
    const now = Date.now();
    await checked(() => store.lifecycle.setConfirmToken(pending.id, 'c'.repeat(64), now, now));
    expect((await checked(() => store.lifecycle.confirm(p.id, pending.id, now, 0)))?.status).toBe('waiting');
    const invited = await store.lifecycle.invite(p.id, {
      sel: { entryIds: [pending.id] },
      codeHash: () => 'i'.repeat(64),
      now,
      expiresAt: now + 60_000,
    });
    expect(invited.rows.map((r) => r.id)).toEqual([pending.id]);
    expect(await checked(() => store.lifecycle.redeem(p.id, 'i'.repeat(64), now))).toMatchObject({ result: 'accepted' });
    expect((await checked(() => store.lifecycle.softDelete(p.id, pending.id, now, 0)))?.deletedAt).toBe(now);

    // After a failed fdatasync such a change is refused before it is written.
    const other = entryRow(p.id, { status: 'pending' });
    expect(await store.insertEntry(other, k.id)).toBe('inserted');
    breakLog(ws);
    await expect(store.lifecycle.setConfirmToken(other.id, 'd'.repeat(64), now, null)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(store.lifecycle.confirm(p.id, other.id, now, 0)).rejects.toThrow(/fsync of the database's log failed/);
    expect(sqlite.prepare('SELECT status FROM entries WHERE id = ?').pluck().get(other.id)).toBe('pending');
    (ws as unknown as { fd: number | undefined }).fd = undefined;
    await store.close();
  });

  it('an import batch waits for it too, commits without an fsync in COMMIT, and is refused after a failed one', async () => {
    const file = join(dir, 'import.db');
    const store = openSqliteStore(file);
    const { p } = await projectWithKeyIn(store);
    const ws = (store as unknown as { walSync: WalSync }).walSync;
    const sqlite = (store as unknown as { sqlite: Database.Database }).sqlite;
    const before = ws.started;
    expect(await store.importEntries(Array.from({ length: 100 }, () => entryRow(p.id)))).toMatchObject({ inserted: 100 });
    expect(ws.completed).toBeGreaterThan(before);
    expect(sqlite.pragma('synchronous', { simple: true })).toBe(2);

    breakLog(ws);
    const lost = entryRow(p.id);
    await expect(store.importEntries([lost])).rejects.toBeInstanceOf(DatabaseUnavailableError);
    const refused = entryRow(p.id);
    await expect(store.importEntries([refused])).rejects.toThrow(/fsync of the database's log failed/);
    expect(sqlite.prepare('SELECT count(*) FROM entries WHERE id = ?').pluck().get(refused.id)).toBe(0);
    (ws as unknown as { fd: number | undefined }).fd = undefined;
    await store.close();
  });

  it('an in-memory store commits with FULL, as before', async () => {
    const store = openSqliteStore(':memory:');
    expect((store as unknown as { walSync: WalSync | undefined }).walSync).toBeUndefined();
    const { p, k } = await projectWithKeyIn(store);
    expect(await store.insertEntry(entryRow(p.id), k.id)).toBe('inserted');
    await store.close();
  });
});
