// A PostgreSQL join batch: one transaction of three round trips that takes the ordinals, inserts the
// rows (crediting referrers), writes the outbox rows someone reads, and gives every new waiting entry
// its exact position (see PgStore.insertBatch for why the round trips are shaped as they are).
import { sql, type SQL } from 'drizzle-orm';
import type pg from 'pg';
import type { OutboxEmail, OutboxEvent, OutboxWrites } from '../outbox.js';
import { type EntryRow, positionAtInsert } from '../store.js';
import { bulkInsert } from './bulk.js';
import { closeOrdinalGaps, insertCrediting, insertResolvingRefs } from './lifecycle.js';
import { integer, literal, named } from './named.js';
import { eventsInsertText, type Subscribers, subscribersFrom, subscribersOf, wantedEvents, writeOutboxPg } from './outbox.js';
import * as s from './schema.js';

/** A join waiting for its batch. */
export interface PendingJoin {
  row: EntryRow;
  keyId: string;
  outbox: ((inserted: EntryRow) => OutboxWrites) | undefined;
  /** The join's `ref` (a referral code) when the row came without referredBy: resolved by the batch's INSERT. */
  ref: string | undefined;
}

/**
 * Writes a batch of joins as one transaction on `client` (BEGIN and COMMIT go with its first and last round trips);
 * answers the ids inserted (the rest were duplicates) and whether outbox rows were written.
 */
export async function writeJoins(client: pg.PoolClient, batch: PendingJoin[]): Promise<{ ids: Set<string>; wrote: boolean }> {
  const byProject = new Map<string, PendingJoin[]>();
  for (const p of batch) byProject.set(p.row.projectId, [...(byProject.get(p.row.projectId) ?? []), p]);
  const projects = [...byProject.keys()].sort(); // rows locked in this order: no deadlock between batches
  // BEGIN, the ordinal reservations, the enabled webhooks of the batch's projects with the types they
  // subscribe to (so a batch whose events no webhook wants sends no outbox statement, and one whose
  // events only webhooks read writes their deliveries too), and the waiting totals of the projects
  // the batch may add waiting entries to: one round trip. The totals are read under the ordinal row's
  // lock, which every write that moves a queue takes first (lifecycle.ts), so they hold until COMMIT.
  const queued = projects.filter((id) => byProject.get(id)!.some((p) => p.row.status === 'waiting'));
  const opened = (await client.query(
    `BEGIN; INSERT INTO entry_ordinals(project_id, last)
     VALUES ${projects.map((id) => `(${literal(id)}, ${integer(byProject.get(id)!.length)})`).join(', ')}
     ON CONFLICT (project_id) DO UPDATE SET last = entry_ordinals.last + EXCLUDED.last RETURNING project_id, last;
     ${subscribersOf(projects)}${
       queued.length
         ? `; SELECT project_id, coalesce(sum(n), 0) AS n FROM position_groups
            WHERE project_id IN (${queued.map(literal).join(', ')}) GROUP BY project_id`
         : ''
     }`,
  )) as unknown as pg.QueryResult[];
  const subscribers = subscribersFrom(opened[2]!.rows as { id: string; project_id: string; type: string }[]);
  const before = (opened[3]?.rows ?? []) as { project_id: string; n: string }[];
  for (const r of opened[1]!.rows as { project_id: string; last: string }[]) {
    const rows = byProject.get(r.project_id)!;
    let next = Number(r.last) - rows.length + 1;
    for (const p of rows) {
      p.row.ordinal = next++;
      p.row.k = p.row.ordinal;
    }
  }
  const tx = named(client);
  const rows = batch.map((p) => p.row);
  // Resolved by every attempt (a batch that failed is retried row by row), so a row carries the
  // referrer read by the attempt that committed.
  const refs = batch.some((p) => p.ref !== undefined) ? batch.map((p) => p.ref ?? null) : undefined;
  for (const p of batch) if (p.ref !== undefined) p.row.referredBy = null;
  const insert = (returning: SQL) => {
    const tail = sql`ON CONFLICT (project_id, email_norm) WHERE deleted_at IS NULL DO NOTHING RETURNING ${returning}`;
    return refs ? insertResolvingRefs(rows, refs, tail) : bulkInsert(s.entries, rows, tail);
  };
  // A batch with referred joins credits their referrers in the same statement (insertCrediting);
  // their `ref` codes are resolved by that INSERT (insertResolvingRefs), so the batch needs no
  // lookup before it.
  const inserting = tx.execute<{ id: string; referred_by?: string | null }>(
    refs || rows.some((r) => r.referredBy && r.status === 'waiting')
      ? insertCrediting(insert(sql`id, project_id, referred_by, status`))
      : insert(sql`id`),
  );
  // The INSERT is on its way (execute sends it before it returns). While PostgreSQL runs it, the
  // outbox rows are built as if every row will be inserted, the usual case: the project's ordinal
  // lock is held from the first round trip to the COMMIT, so work done now is work the next batch does
  // not wait for. Not for a batch with refs (the INSERT resolves their referrers, which the payloads
  // carry); redone below when the INSERT refused a duplicate.
  const everyRow = new Set(rows.map((r) => r.id));
  let guessed: ReturnType<typeof outboxOf> | undefined;
  try {
    guessed = refs ? undefined : outboxOf(batch, byProject, everyRow, before, subscribers);
  } catch {
    // Built again below, after the INSERT, where an error fails the batch as it always did.
  }
  const inserted = await inserting;
  const ids = new Set(inserted.rows.map((r) => r.id));
  // A duplicate's ordinal was reserved with the batch: close up the gaps it left (see compactOrdinals).
  const compacting = compactOrdinals(byProject, ids, opened[1]!.rows as { project_id: string; last: string }[]);
  if (refs) {
    const referredBy = new Map(inserted.rows.map((r) => [r.id, r.referred_by ?? null]));
    for (const p of batch) if (p.ref !== undefined) p.row.referredBy = referredBy.get(p.row.id) ?? null;
  }
  let outbox = guessed;
  if (!outbox || ids.size !== everyRow.size) {
    for (const r of rows) if (!ids.has(r.id)) positionAtInsert.delete(r); // a duplicate: no position
    outbox = outboxOf(batch, byProject, ids, before, subscribers);
  }
  const { events, emails, eventsText } = outbox;
  const wroteEmails = emails.length > 0 && (await writeOutboxPg(tx, { emails }));
  const wrote = wroteEmails || events.length > 0;
  // Each key's lastUsedAt becomes its latest join in the batch (inserted or duplicate: the key was
  // used), as SQLite does; the column bumps no catalog version.
  const latest = new Map<string, number>();
  for (const { keyId, row } of batch) latest.set(keyId, Math.max(latest.get(keyId) ?? 0, row.createdAt));
  const touch = `UPDATE api_keys AS k SET last_used_at = u.at
     FROM (VALUES ${[...latest].map(([id, at]) => `(${literal(id)}, ${integer(at)}::bigint)`).join(', ')}) AS u(id, at) WHERE k.id = u.id`;
  const closing = [...compacting, eventsText, touch, 'COMMIT'].filter((q) => q !== undefined);
  await client.query(closing.join('; '));
  return { ids, wrote };
}

/**
 * The outbox rows of the batch's rows in `ids` (those inserted): first their positions (an
 * entry.created payload carries the new entry's position), then the events someone reads (a webhook
 * subscribes, or sign-up notices), which go with the closing statements as literals, no round trip of
 * their own: those only webhooks read already fanned out, with one delivery per subscribed webhook
 * (eventsInsertText). Emails (welcome or confirmation, rare on the join path) keep a statement of their own.
 */
function outboxOf(
  batch: PendingJoin[],
  byProject: Map<string, PendingJoin[]>,
  ids: Set<string>,
  before: { project_id: string; n: string }[],
  subscribers: Subscribers,
): { events: OutboxEvent[]; emails: OutboxEmail[]; eventsText: string | undefined } {
  const waiting = [...byProject.values()]
    .map((group) => group.filter((p) => ids.has(p.row.id) && p.row.status === 'waiting' && p.row.deletedAt === null))
    .filter((group) => group.length > 0);
  newPositions(waiting, before);
  const writes = batch.filter((p) => p.outbox && ids.has(p.row.id)).map((p) => p.outbox!(p.row));
  const events = wantedEvents(
    writes.flatMap((w) => w.events ?? []),
    subscribers,
  );
  const emails = writes.flatMap((w) => w.emails ?? []);
  return { events, emails, eventsText: events.length ? eventsInsertText(events, subscribers) : undefined };
}

/**
 * The closing round trip's statements that close the ordinal gaps a project's refused rows left
 * (closeOrdinalGaps): none when nothing was refused, the usual case. (Reading the list's emails first,
 * to number only new rows, needs a query whose plan goes wrong on a table whose statistics lag its
 * growth: 20-55 % of the joins/s in an A/B run.)
 */
function compactOrdinals(
  byProject: Map<string, PendingJoin[]>,
  ids: Set<string>,
  reserved: { project_id: string; last: string }[],
): string[] {
  const out: string[] = [];
  for (const r of reserved) {
    const rows = byProject.get(r.project_id)!.map((p) => p.row);
    if (rows.every((row) => ids.has(row.id))) continue;
    const { moved, last } = closeOrdinalGaps(rows, Number(r.last) - rows.length + 1, ids);
    if (moved.length) {
      const values = moved.map((m) => `(${literal(m.id)}, ${integer(m.ordinal)}::bigint)`).join(', ');
      out.push(`UPDATE entries AS e SET ordinal = v.o, k = v.o FROM (VALUES ${values}) AS v(id, o) WHERE e.id = v.id`);
    }
    out.push(`UPDATE entry_ordinals SET last = ${integer(last)} WHERE project_id = ${literal(r.project_id)}`);
  }
  return out;
}

/**
 * The exact positions of the batch's new waiting entries, as of its commit, given to their 201s and
 * entry.created payloads through `positionAtInsert` (as the SQLite store does) so they need no
 * position query. The totals were read before the INSERT, under each project's queue lock (its
 * ordinal row), which no other queue write can take before this COMMIT. A new entry's k is its
 * ordinal, above every earlier entry's ordinal and so above their k: the new entries join the end of
 * the waiting queue in ordinal order, and the i-th of them is at the total before + i (1-based).
 * Referral credits in the INSERT move referrers, never the count.
 */
function newPositions(waiting: PendingJoin[][], totalRows: { project_id: string; n: string }[]) {
  const totals = new Map(totalRows.map((x) => [x.project_id, Number(x.n)]));
  for (const rows of waiting) {
    const before = totals.get(rows[0]!.row.projectId) ?? 0;
    rows.sort((a, b) => a.row.ordinal - b.row.ordinal);
    for (const [i, p] of rows.entries()) positionAtInsert.set(p.row, before + i + 1);
  }
}
