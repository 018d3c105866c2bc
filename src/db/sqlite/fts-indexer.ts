// Feeds the FTS5 trigram index (entries_fts) off the join path. The entry triggers queue new and
// changed live entries in `fts_pending` (migrations/sqlite/0009_join_path.sql); this indexes them in
// bulk, in its own short transaction, shortly after a join batch commits, and searches match whatever
// is still queued one by one, so a search right after a 201 finds that entry (entry-reads.ts).
//
// - One run indexes up to RUN_ROWS queued entries (oldest key first) and dequeues them in the same
//   transaction: the index and the queue can never disagree, whatever crashes.
// - Its commit is not fsynced (synchronous=NORMAL for this one transaction): it acknowledges nothing,
//   and if a power cut loses it the entries are simply still queued (WAL keeps it atomic, and the next
//   join's WAL sync covers it anyway; see sync.ts). Every transaction that answers a client is on disk
//   before the answer.
// - Runs are triggered by join batches once on disk (after DELAY_MS, so one run covers many batches),
//   at start-up (entries queued by an earlier process, a bulk load or another process sharing the
//   file) and every POLL_MS while idle. A locked database just defers the run.
// - A run only adds a segment: FTS5's automerge is off (migration 0012), because merging inside a run
//   made about one run in seven take over 5 ms (mostly 10-18) on the event loop. The checkpoint
//   worker merges in bounded steps off the loop (checkpointer.ts); without a worker (an in-memory
//   database, or a worker that could not start) each run ends with one such step itself.
import type Database from 'better-sqlite3';
import { fold } from '../fold.js';
import { FTS_MERGE_SQL } from './checkpointer.js';
import { unsynced } from './sync.js';

const RUN_ROWS = 5000;
const DELAY_MS = 25;
const POLL_MS = 1000;

/** The SQL function searches use on queued entries: the FTS phrase's match rule (src/db/fold.ts), in JS. */
export function registerSearchMatch(db: Database.Database): void {
  db.function('wl_search_match', { deterministic: true }, (email: unknown, name: unknown, needle: unknown) => {
    const n = String(needle);
    return fold(String(email)).includes(n) || (name !== null && fold(String(name)).includes(n)) ? 1 : 0;
  });
}

export class FtsIndexer {
  private timer: NodeJS.Timeout | null = null;
  private readonly poll: NodeJS.Timeout;
  private readonly index: Database.Statement;
  private readonly dequeue: Database.Statement;
  private readonly anyQueued: Database.Statement;
  private readonly run: (n: number) => number;
  private closed = false;

  /** `mergesElsewhere`: whether the checkpoint worker merges the index's segments (checkpointer.ts). */
  constructor(
    private readonly db: Database.Database,
    mergesElsewhere: () => boolean = () => false,
  ) {
    this.index = db.prepare(
      `INSERT INTO entries_fts(rowid, email, name)
       SELECT s.sk, s.email, s.name FROM entries_search s WHERE s.sk IN (SELECT sk FROM fts_pending ORDER BY sk LIMIT ?)`,
    );
    this.dequeue = db.prepare('DELETE FROM fts_pending WHERE sk IN (SELECT sk FROM fts_pending ORDER BY sk LIMIT ?)');
    this.anyQueued = db.prepare('SELECT EXISTS (SELECT 1 FROM fts_pending)').pluck();
    const merge = db.prepare(FTS_MERGE_SQL);
    const tx = db.transaction((n: number) => {
      this.index.run(n);
      const done = this.dequeue.run(n).changes;
      if (!mergesElsewhere()) merge.run();
      return done;
    });
    this.run = (n) => tx.immediate(n);
    this.poll = setInterval(() => this.soon(0), POLL_MS).unref();
    this.soon(0);
  }

  /** Schedules a run (joins call this after each commit). */
  soon(delay = DELAY_MS): void {
    if (this.timer || this.closed) return;
    // unref: a queue never keeps a process (e.g. a CLI command) alive; what is left is indexed later.
    this.timer = setTimeout(() => {
      this.timer = null;
      this.indexNow();
    }, delay).unref();
  }

  /** Indexes one run's worth of queued entries now; schedules the next run if more are queued. */
  indexNow(): void {
    if (this.closed || !this.db.open) return;
    if (this.db.inTransaction) return this.soon(); // never inside another write
    try {
      if (!this.anyQueued.get()) return;
      const done = unsynced(this.db, () => this.run(RUN_ROWS));
      if (done === RUN_ROWS) this.soon(0);
    } catch {
      // Locked by another process, or storage trouble (full, read-only): the entries stay queued, and
      // searches still find them; the next poll tries again.
    }
  }

  close(): void {
    this.closed = true;
    clearInterval(this.poll);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
