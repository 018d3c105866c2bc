// An import's rows put in date order (LifecycleStore.orderImported) on SQLite, in steps.
//
// An import numbers each batch in date order by itself; a file not in date order (an export newest
// first, as hosted tools write them) is renumbered at the end, every row of the import given its place
// among the import's ordinals by (createdAt, then the order it was inserted in). In one transaction
// that held every other request: 7.8 s for a million rows newest first (read 1.2 s, sort 0.3 s, update
// 6 s). Here it runs in steps with a turn of the event loop between them: reads of 50,000 rowids, a merge
// of the batches' runs 50,000 rows at a time, and transactions of 5,000 moves.
//
// Between two steps some of the import's rows may share an ordinal. A crash there would leave that for
// good, so a row of `import_reorders` names the project and the import's ordinal ranges from before the
// first move to the last move's commit, and a store that opens with such a row finishes the work first
// (SqliteLifecycle.finishReorders). Finishing it is the same computation: the import's rows are the
// project's rows whose ordinal is in the ranges (a move gives a row another ordinal of the ranges), the
// ordinals to give are those of the ranges, and the order wanted depends only on the rows' createdAt
// and rowid, which no move changes.
import type Database from 'better-sqlite3';

export type Ranges = readonly (readonly [number, number])[];

/** Rowids read per step (whatever project they belong to). */
const READ_WINDOW = 50_000;
/** Rows put in order per step of the merge. */
const MERGE_STEP = 50_000;
/** Rows moved per transaction. */
const MOVES_PER_TX = 5_000;

/** True when `o` is in one of the sorted, disjoint ranges. */
function inRanges(ranges: Ranges, o: number): boolean {
  let a = 0;
  let b = ranges.length - 1;
  while (a <= b) {
    const m = (a + b) >> 1;
    const [from, to] = ranges[m]!;
    if (o < from) b = m - 1;
    else if (o > to) a = m + 1;
    else return true;
  }
  return false;
}

/**
 * One step of a reorder: `null` between two steps that only read (take a turn of the event loop), or a
 * transaction of moves to commit (retried whole on a locked database: it starts with BEGIN IMMEDIATE),
 * then a turn.
 */
export type Step = (() => void) | null;

/** The work of one reorder as steps; answers how many rows it moved. The last transaction also deletes the plan's row. */
export function* reorderSteps(
  db: Database.Database,
  projectId: string,
  ranges: Ranges,
  planId: number,
  boostSql: string,
): Generator<Step, number> {
  const lo = ranges[0]![0];
  const hi = ranges[ranges.length - 1]![1];
  // The import's rows in rowid order (the order they were inserted in), as three columns.
  const rowids: number[] = [];
  const ordinals: number[] = [];
  const created: number[] = [];
  const last = db.prepare('SELECT coalesce(max(rowid), 0) FROM entries').pluck().get() as number;
  const read = db
    .prepare('SELECT rowid, ordinal, created_at FROM entries WHERE rowid > ? AND rowid <= ? AND project_id = ? AND ordinal BETWEEN ? AND ?')
    .raw();
  for (let from = 0; from < last; from += READ_WINDOW) {
    for (const r of read.all(from, from + READ_WINDOW, projectId, lo, hi) as [number, number, number][]) {
      if (!inRanges(ranges, r[1])) continue; // a join's, between two of the import's batches
      rowids.push(r[0]);
      ordinals.push(r[1]);
      created.push(r[2]);
    }
    yield null;
  }
  const n = rowids.length;
  // The ordinals to give out, smallest first, to the rows in date order: those of the ranges, which the
  // import's batches took one per row (fewer rows only if some were erased since). Not the rows' own
  // ordinals: after a crash between two transactions some rows share one, and others are nobody's.
  const wanted = new Float64Array(n);
  for (let k = 0, r = 0, o = ranges[0]![0]; k < n; k++, o++) {
    if (o > ranges[r]![1]) o = ranges[++r]![0];
    wanted[k] = o;
  }
  // Each batch was sorted by date before its insert, so in rowid order the rows are runs of ascending
  // dates: merged with a heap of the runs' heads, ties to the lower rowid (the earlier insert).
  const runEnds: number[] = [];
  for (let i = 1; i <= n; i++) if (i === n || created[i]! < created[i - 1]!) runEnds.push(i);
  const heads = new Int32Array(runEnds.length); // each run's next row
  const heap: number[] = []; // run numbers, by their head row
  const before = (a: number, b: number) => {
    const x = heads[a]!;
    const y = heads[b]!;
    return created[x]! < created[y]! || (created[x] === created[y] && x < y);
  };
  const down = (at: number) => {
    for (;;) {
      const l = 2 * at + 1;
      if (l >= heap.length) return;
      const c = l + 1 < heap.length && before(heap[l + 1]!, heap[l]!) ? l + 1 : l;
      if (!before(heap[c]!, heap[at]!)) return;
      [heap[c], heap[at]] = [heap[at]!, heap[c]!];
      at = c;
    }
  };
  for (let r = 0; r < runEnds.length; r++) heads[r] = r === 0 ? 0 : runEnds[r - 1]!;
  for (let r = 0; r < runEnds.length; r++) heap.push(r);
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  const byDate = new Int32Array(n); // row indexes in date order
  for (let k = 0; k < n; k++) {
    const run = heap[0]!;
    byDate[k] = heads[run]!;
    heads[run] = heads[run]! + 1;
    if (heads[run] === runEnds[run]) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    down(0);
    if ((k + 1) % MERGE_STEP === 0) yield null;
  }
  // The moves, a transaction at a time. A row keeps its rowid and date, so the createdAt check only
  // guards against a rowid given to a new row after the import's row was erased meanwhile.
  const move = db.prepare(
    `UPDATE entries SET ordinal = @o, k = @o - ${boostSql} * referrals
     WHERE rowid = @rowid AND project_id = @projectId AND created_at = @created`,
  );
  const done = db.prepare('DELETE FROM import_reorders WHERE id = ?');
  let moved = 0;
  for (let at = 0; ; at += MOVES_PER_TX) {
    const end = Math.min(n, at + MOVES_PER_TX);
    const from = at;
    yield () => {
      for (let k = from; k < end; k++) {
        const i = byDate[k]!;
        const o = wanted[k]!;
        if (ordinals[i] === o) continue;
        moved += move.run({ o, rowid: rowids[i], projectId, created: created[i] }).changes;
      }
      if (end === n) done.run(planId);
    };
    if (end === n) break;
  }
  return moved;
}

/** Records the plan (its own transaction, before the first move); answers its id. */
export function recordPlan(db: Database.Database, projectId: string, ranges: Ranges): number {
  return Number(
    db.prepare('INSERT INTO import_reorders (project_id, ranges) VALUES (?, ?)').run(projectId, JSON.stringify(ranges)).lastInsertRowid,
  );
}

/** The plans a crash left unfinished. */
export function unfinishedPlans(db: Database.Database): { id: number; projectId: string; ranges: Ranges }[] {
  return (
    db.prepare('SELECT id, project_id, ranges FROM import_reorders ORDER BY id').all() as {
      id: number;
      project_id: string;
      ranges: string;
    }[]
  ).map((r) => ({ id: r.id, projectId: r.project_id, ranges: JSON.parse(r.ranges) as Ranges }));
}
