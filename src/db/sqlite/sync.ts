// Commits that need no fsync of their own.
//
// The connection runs with synchronous=FULL: every commit that answers a client (a 200 for a change)
// is fsynced inside COMMIT, before the answer. A join batch (and a subscriber link's change) commits
// through here too, and its answer waits for an fdatasync of the log off the event loop (wal-sync.ts). Writers that acknowledge nothing commit with
// synchronous=NORMAL instead (`unsynced`): the commit is written to the WAL but not fsynced. In WAL
// mode the log is one sequence, so such a commit can only be lost together with everything after it,
// and the next FULL commit makes it durable too. What a power cut can lose is redone after restart:
// - the search indexer's runs (fts-indexer.ts): the entries are still queued, and searches find them;
// - the outbox dispatcher's fan-outs, claims and outcomes (outbox.ts): events stay un-fanned and
//   deliveries pending, so they are fanned out and sent again (delivery is at least once anyway).
// Each fsync on the event loop's thread stops every request for its duration; these writers run after
// every join batch, so this keeps one fsync per batch.
import type Database from 'better-sqlite3';

interface Pragmas {
  current: Database.Statement;
  normal: Database.Statement;
  restore: Map<number, Database.Statement>;
}
const pragmas = new WeakMap<Database.Database, Pragmas>();

function pragmasOf(db: Database.Database): Pragmas {
  let p = pragmas.get(db);
  if (!p) {
    p = { current: db.prepare('PRAGMA synchronous').pluck(), normal: db.prepare('PRAGMA synchronous = NORMAL'), restore: new Map() };
    pragmas.set(db, p);
  }
  return p;
}

/** Runs `fn` (which commits) with synchronous=NORMAL, then restores the connection's setting. */
export function unsynced<T>(db: Database.Database, fn: () => T): T {
  // SQLite refuses to change the setting inside a transaction: there the outer commit decides.
  if (db.inTransaction) return fn();
  const p = pragmasOf(db);
  const was = p.current.get() as number;
  if (was <= 1) return fn(); // already NORMAL or OFF (or nested)
  p.normal.run();
  try {
    return fn();
  } finally {
    let restore = p.restore.get(was);
    if (!restore) {
      restore = db.prepare(`PRAGMA synchronous = ${was}`);
      p.restore.set(was, restore);
    }
    restore.run();
  }
}
