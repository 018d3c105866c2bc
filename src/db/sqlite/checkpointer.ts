// WAL checkpoints on a worker thread, off the event loop.
//
// In WAL mode every commit appends pages to the -wal file, and a checkpoint copies them back into the
// database file and fsyncs it. SQLite runs that checkpoint inside the commit that pushes the log past
// `wal_autocheckpoint` pages (1,000 by default): on the server's one connection, in the event loop's
// thread, so every ~1,000 pages all requests stopped for the copy and its fsync. At 1M entries, where a
// join's pages are scattered over a large file, that was about a tenth of the join path's time
// (docs/performance.md, round five).
//
// Here a worker thread with its own connection to the file runs PASSIVE checkpoints: woken after
// join commits and once a second, at most one per PACE_MS, never blocking a writer (PASSIVE copies what no reader needs and
// stops there). The server's connection keeps an auto-checkpoint of its own as a fallback at
// FALLBACK_PAGES (~40 MB of log), reached only if the worker falls far behind. Durability does not
// depend on checkpoints: a commit is durable once its WAL frames are fsynced, which the committing
// connection still does (synchronous=FULL), or wal-sync.ts does for a join batch. A checkpoint fsyncs
// the log before copying it back (under NORMAL as under FULL), so it never copies frames not yet on disk.
//
// The same worker merges the search index's segments (FTS5 automerge is off: migration 0012): after
// each checkpoint, one bounded step of FTS_MERGE_PAGES pages, which FTS5 skips while no level holds
// 4 segments. A step holds the write lock for a few ms; a server statement that meets it waits that
// long (the connection's 20 ms busy timeout; a join batch past it is retried on timers, busy.ts).
// Merged segments are derived data, so its commits are not fsynced (synchronous = NORMAL on this
// connection: the next FULL commit of the server makes them durable, sync.ts).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

const PACE_MS = 100;
export const FALLBACK_PAGES = 10_000;
/** Pages one search-index merge step writes at most (FTS5 'merge'). */
const FTS_MERGE_PAGES = 50;
/** One bounded merge step of the search index: run by the worker, or by fts-indexer.ts when there is none. */
export const FTS_MERGE_SQL = `INSERT INTO entries_fts(entries_fts, rank) VALUES('merge', ${FTS_MERGE_PAGES})`;

// The worker's code: CommonJS, evaluated (no file of its own, so it runs the same from src under the
// tests and from dist). Slots of the shared array: 0 = commits seen by the main thread, 1 = stop.
const WORKER = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const signal = new Int32Array(workerData.signal);
const pause = new Int32Array(new SharedArrayBuffer(4));
const db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
db.pragma('synchronous = NORMAL');
let merge = null;
try {
  merge = db.prepare(${JSON.stringify(FTS_MERGE_SQL)});
} catch {
  // No search index in this file: checkpoints only.
}
for (;;) {
  // Woken by a commit, or once a second (what other writers left in the log; nearly free when idle).
  Atomics.wait(signal, 0, Atomics.load(signal, 0), 1000);
  if (Atomics.load(signal, 1)) break;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or failing: the next wake tries again, and the server's own fallback checkpoint remains.
  }
  try {
    merge?.run();
  } catch {
    // Busy (a join batch is committing): the next wake merges.
  }
  Atomics.wait(pause, 0, 0, ${PACE_MS});
}
db.close();
`;

export class Checkpointer {
  private readonly signal = new Int32Array(new SharedArrayBuffer(8));
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private failed = false;

  constructor(file: string, db: Database.Database) {
    db.pragma(`wal_autocheckpoint = ${FALLBACK_PAGES}`);
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: { file, module: createRequire(import.meta.url).resolve('better-sqlite3'), signal: this.signal.buffer },
    });
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    // A worker that cannot run (it could not open the file): the connection checkpoints as SQLite
    // does by default, in its commits.
    this.worker.once('error', (err) => {
      this.failed = true;
      db.pragma('wal_autocheckpoint = 1000');
      console.error(`SQLite checkpoint worker stopped (${err.message}); checkpoints run in commits again`);
    });
  }

  /** Whether the worker runs (and so merges the search index's segments; else fts-indexer.ts does). */
  get running(): boolean {
    return !this.failed;
  }

  /** After a commit: wakes the worker (a counter and a futex wake, no message). */
  committed(): void {
    Atomics.add(this.signal, 0, 1);
    Atomics.notify(this.signal, 0);
  }

  /** Stops the worker and waits for it to close its connection (before the server's own close). */
  async close(): Promise<void> {
    this.worker.ref(); // else the loop may empty while this waits, and the process exits before the close
    Atomics.store(this.signal, 1, 1);
    Atomics.notify(this.signal, 0);
    if (!this.failed) await this.exited;
  }
}
