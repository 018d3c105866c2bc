// An import's rows put in date order (LifecycleStore.orderImported) on PostgreSQL, in short transactions.
//
// An import numbers each batch in date order by itself; a file not in date order (an export newest first,
// as hosted tools write them) is renumbered at its end, every row of the import given its place among
// the import's ordinals by (createdAt, then its first ordinal). As one transaction under the project's
// queue lock that took about a minute for a million rows newest first, and every join batch with a join
// to that project waited for it, answering 503 at the 10 s statement timeout.
//
// Now the moves are planned first, in one transaction: `import_moves` (migration 0014) holds each row's
// new ordinal, numbered. Then transactions of MOVES_PER_TX moves each take the queue lock, make their
// moves and delete them from the plan. Between two of them some of the import's rows may share an ordinal; a crash
// there leaves the rest of the plan, and a server that starts finishes it before it serves
// (finishPlannedMoves, on the migration connection). Every move sets a row to its planned ordinal, so
// two servers finishing one plan at once (one restarted while the other still runs it) only repeat work.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { boostOf, lockQueue } from './queue.js';

type Db = NodePgDatabase<Record<string, unknown>>;
export type Ranges = readonly (readonly [number, number])[];

/** Moves per transaction: what a join to the project may wait for (about 0.7 s at a million entries). */
const MOVES_PER_TX = 10_000;
/** Plan rows copied per statement. */
const PLAN_ROWS_PER_STATEMENT = 100_000;

/** Plans the moves that put the import's rows in date order; answers the plan's id and how many moves. */
export async function planMoves(db: Db, projectId: string, ranges: Ranges): Promise<{ planId: string; moves: number }> {
  const planId = randomUUID();
  const moves = await db.transaction(async (tx) => {
    // Joins by hash, whatever the statistics say: right after a large import they still describe the
    // table before it, and a nested loop over the two numberings of thousands of rows took minutes.
    await tx.execute(sql`SET LOCAL enable_nestloop = off`);
    await tx.execute(
      sql`CREATE TEMPORARY TABLE planned_moves ON COMMIT DROP AS
          WITH r AS (SELECT * FROM unnest(${sql.param(ranges.map((x) => x[0]))}::bigint[], ${sql.param(ranges.map((x) => x[1]))}::bigint[]) AS r(lo, hi)),
          imp AS (SELECT e.id, e.ordinal, e.created_at FROM entries e
                  WHERE e.project_id = ${projectId} AND e.ordinal BETWEEN ${ranges[0]![0]} AND ${ranges[ranges.length - 1]![1]}
                    AND EXISTS (SELECT 1 FROM r WHERE e.ordinal BETWEEN r.lo AND r.hi)),
          by_date AS (SELECT id, ordinal AS was, row_number() OVER (ORDER BY created_at, ordinal) AS n FROM imp),
          by_ordinal AS (SELECT ordinal, row_number() OVER (ORDER BY ordinal) AS n FROM imp)
        SELECT row_number() OVER () AS seq, d.id, o.ordinal FROM by_date d JOIN by_ordinal o ON o.n = d.n WHERE d.was <> o.ordinal`,
    );
    const r = await tx.execute<{ n: string }>(sql`SELECT count(*) AS n FROM planned_moves`);
    const n = Number(r.rows[0]?.n ?? 0);
    for (let from = 0; from < n; from += PLAN_ROWS_PER_STATEMENT) {
      await tx.execute(sql`INSERT INTO import_moves (plan_id, project_id, seq, entry_id, ordinal)
        SELECT ${planId}, ${projectId}, seq, id, ordinal FROM planned_moves WHERE seq > ${from} AND seq <= ${from + PLAN_ROWS_PER_STATEMENT}`);
    }
    return n;
  });
  return { planId, moves };
}

/**
 * One transaction of a plan's moves: those numbered above `after`, MOVES_PER_TX of them (by number, not
 * by a LIMIT: the plan's deleted rows stay in its index until a vacuum, and a scan from its start over
 * them made the reorder quadratic). Answers how many were planned there and how many rows moved.
 */
export async function moveSome(db: Db, planId: string, projectId: string, after: number): Promise<{ planned: number; moved: number }> {
  const r = await db.transaction(async (tx) => {
    // The queue's lock, as every change of the queue's order takes it (an invite picks its rows by it).
    await lockQueue(tx, projectId);
    return tx.execute<{ planned: string; moved: string }>(sql`
      WITH m AS (
        DELETE FROM import_moves WHERE plan_id = ${planId} AND seq > ${after} AND seq <= ${after + MOVES_PER_TX}
        RETURNING entry_id, ordinal),
      u AS (
        UPDATE entries AS e SET ordinal = m.ordinal, k = m.ordinal - ${boostOf(projectId)} * e.referrals
        FROM m WHERE e.id = m.entry_id AND e.project_id = ${projectId} AND e.ordinal <> m.ordinal
        RETURNING 1)
      SELECT (SELECT count(*) FROM m) AS planned, (SELECT count(*) FROM u) AS moved`);
  });
  return { planned: Number(r.rows[0]?.planned ?? 0), moved: Number(r.rows[0]?.moved ?? 0) };
}

/** Makes a plan's moves (those left of it), a short transaction at a time; answers how many rows moved. */
export async function makeMoves(db: Db, planId: string, projectId: string): Promise<number> {
  const r = await db.execute<{ lo: string | null; hi: string | null }>(
    sql`SELECT min(seq) AS lo, max(seq) AS hi FROM import_moves WHERE plan_id = ${planId}`,
  );
  if (r.rows[0]?.lo == null) return 0;
  let moved = 0;
  for (let after = Number(r.rows[0].lo) - 1; after < Number(r.rows[0].hi); after += MOVES_PER_TX) {
    moved += (await moveSome(db, planId, projectId, after)).moved;
  }
  return moved;
}

/** Finishes the plans a crash left (at start, before the server serves); answers how many. */
export async function finishPlannedMoves(db: Db): Promise<number> {
  const r = await db.execute<{ plan_id: string; project_id: string }>(sql`SELECT DISTINCT plan_id, project_id FROM import_moves`);
  for (const p of r.rows) await makeMoves(db, p.plan_id, p.project_id);
  return r.rows.length;
}
