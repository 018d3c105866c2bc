// A join batch's fsync, off the event loop (and that of the changes a subscriber's link makes:
// confirm, accept, a resent confirmation, and a management delete; `durably`, used by lifecycle.ts).
//
// With synchronous=FULL, SQLite fsyncs the -wal file inside COMMIT: on the server's one connection,
// in the event loop's thread, so every request waited for the disk once per join batch (8 % of the
// main thread's sampled time under load: docs/performance.md, round fifteen). A join batch now
// commits with synchronous=NORMAL (sync.ts: its frames are written to the log, not fsynced), and then
// asks this class for an fdatasync of the same -wal file on a thread of libuv's pool; its 201s go out
// only once an fdatasync that started after its commit has returned. That is the guarantee FULL gave:
// fsync flushes the file, whichever descriptor wrote it.
//
// Why the log stays whole in between: a checkpoint (the worker's, or SQLite's fallback in a commit)
// fsyncs the log before copying it back and the database file after, under NORMAL as under FULL, and
// the log is only rewritten from its start after such a checkpoint. A process crash (SIGKILL) loses
// nothing written either way; what an fdatasync adds is surviving a power cut.
//
// Calls are coalesced: while one fdatasync runs, every caller that asks (a join batch, the outbox
// dispatcher's claims: outbox.ts) waits for the next one, which covers them all. A failed fdatasync
// fails its waiters and every later call, until the server restarts: after a failed fsync the kernel
// may have dropped the dirty pages and report the next fsync clean, so nothing written since can be
// acknowledged as durable.
import { closeSync, fdatasync, fsyncSync, openSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { DatabaseUnavailableError } from '../errors.js';
import { unsynced } from './sync.js';

/** The 503 of every write after an fsync of the log failed (its errno code for the log, no path). */
function fsyncFailed(err: unknown): DatabaseUnavailableError {
  const code = (err as { code?: unknown } | undefined)?.code;
  const why = typeof code === 'string' && /^E[A-Z]+$/.test(code) ? ` (${code})` : '';
  return new DatabaseUnavailableError(`an fsync of the database's log failed${why}; restart the server once the disk is sound`, 1, {
    cause: err,
  });
}

/**
 * Runs `fn` (which commits a change a client is answered about) without an fsync in its COMMIT, then
 * waits for the log's fdatasync off the event loop; without `ws` (or inside another transaction, whose
 * commit decides), just runs it. After a failed fdatasync it refuses before writing.
 */
export async function durably<T>(db: Database.Database, ws: WalSync | undefined, fn: () => T): Promise<T> {
  if (!ws || db.inTransaction) return fn();
  ws.assertSound();
  const result = unsynced(db, fn);
  await ws.durable();
  return result;
}

interface Waiter {
  ticket: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class WalSync {
  private fd: number | undefined;
  private asked = 0;
  private running = false;
  private failed: unknown;
  private waiters: Waiter[] = [];
  private idle: (() => void)[] = [];
  /** fdatasyncs started: a call made when this was n is answered by the (n+1)-th or a later one. */
  started = 0;
  /** fdatasyncs completed. */
  completed = 0;

  /**
   * Opens the log of the database `file` (it must exist: the connection is in WAL mode and has
   * written). The directory is fsynced once, so the log's own name survives a power cut; SQLite did
   * that on its first fsync of the log, which NORMAL commits no longer make.
   */
  constructor(file: string) {
    // SQLite names the log after the database's real path (a symlinked file's log is beside its target).
    const real = realpathSync(file);
    const dir = openSync(dirname(real), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    this.fd = openSync(`${real}-wal`, 'r');
  }

  /** Throws the 503 of a failed fdatasync, if one failed: nothing written since could be promised. */
  assertSound(): void {
    if (this.failed !== undefined) throw fsyncFailed(this.failed);
  }

  /** sync(), with a failure as the 503 every caller answers with (fsyncFailed). */
  durable(): Promise<void> {
    return this.sync().catch((err: unknown) => {
      throw fsyncFailed(err);
    });
  }

  /** Resolves once everything this connection committed before the call is on disk. */
  sync(): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    const ticket = ++this.asked;
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ ticket, resolve, reject });
      this.pump();
    });
  }

  /** Resolves when no fdatasync is running or asked for (before closing the database). */
  settled(): Promise<void> {
    if (!this.running && !this.waiters.length) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Closes the log's descriptor once every asked fdatasync has finished. */
  async close(): Promise<void> {
    await this.settled();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private pump(): void {
    if (this.running || !this.waiters.length) return;
    if (this.fd === undefined) {
      this.fail(new Error('the write-ahead log is closed'));
      return;
    }
    // Every ticket issued so far belongs to a commit that returned before this call starts.
    const upTo = this.asked;
    this.running = true;
    this.started++;
    fdatasync(this.fd, (err) => {
      this.running = false;
      if (err) {
        this.fail(err);
        return;
      }
      this.completed++;
      const done = this.waiters.filter((w) => w.ticket <= upTo);
      this.waiters = this.waiters.filter((w) => w.ticket > upTo);
      for (const w of done) w.resolve();
      if (this.waiters.length) this.pump();
      else this.wakeIdle();
    });
  }

  private fail(err: unknown): void {
    this.failed ??= err;
    const all = this.waiters;
    this.waiters = [];
    for (const w of all) w.reject(this.failed);
    this.wakeIdle();
  }

  private wakeIdle(): void {
    const all = this.idle;
    this.idle = [];
    for (const f of all) f();
  }
}

/**
 * The log's fsync for the connection `db` to `file`, or undefined when commits must keep fsyncing
 * themselves: an in-memory database, a journal mode other than WAL, or a log that cannot be opened.
 */
export function openWalSync(db: Database.Database, file: string): WalSync | undefined {
  if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') return undefined;
  try {
    return new WalSync(file);
  } catch {
    return undefined;
  }
}
