// A PostgreSQL join batch: one transaction of two round trips (three when it has referrals to resolve
// or credit) that takes the ordinals, inserts the rows (crediting referrers), writes the outbox rows
// someone reads, and gives every new waiting entry its exact position (see PgStore.insertBatch for
// why the round trips are shaped as they are).
import { randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import type { OutboxEmail, OutboxEvent, OutboxWrites } from '../outbox.js';
import { type EntryRow, positionAtInsert } from '../store.js';
import { bulkInsert, literalRows } from './bulk.js';
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
 * answers the ids inserted (the rest were duplicates) and whether outbox rows were written. `guesses`
 * keeps each project's webhook subscribers from its last batch, for the outbox rows built while the
 * first round trip runs.
 */
export async function writeJoins(
  client: pg.PoolClient,
  batch: PendingJoin[],
  guesses: SubscriberGuesses,
): Promise<{ ids: Set<string>; wrote: boolean }> {
  const byProject = new Map<string, PendingJoin[]>();
  for (const p of batch) byProject.set(p.row.projectId, [...(byProject.get(p.row.projectId) ?? []), p]);
  const projects = [...byProject.keys()].sort(); // rows locked in this order: no deadlock between batches
  // BEGIN, the ordinal reservations, the enabled webhooks of the batch's projects with the types they
  // subscribe to (so a batch whose events no webhook wants sends no outbox statement, and one whose
  // events only webhooks read writes their deliveries too), and the waiting totals of the projects
  // the batch may add waiting entries to. The totals are read under the ordinal row's lock, which
  // every write that moves a queue takes first (lifecycle.ts), so they hold until COMMIT.
  const queued = projects.filter((id) => byProject.get(id)!.some((p) => p.row.status === 'waiting'));
  const opening = `BEGIN; INSERT INTO entry_ordinals(project_id, last)
     VALUES ${projects.map((id) => `(${literal(id)}, ${integer(byProject.get(id)!.length)})`).join(', ')}
     ON CONFLICT (project_id) DO UPDATE SET last = entry_ordinals.last + EXCLUDED.last RETURNING project_id, last;
     ${subscribersOf(projects)}${
       queued.length
         ? `; SELECT project_id, coalesce(sum(n), 0) AS n FROM position_groups
            WHERE project_id IN (${queued.map(literal).join(', ')}) GROUP BY project_id`
         : ''
     }`;
  const referred = batch.some((p) => p.ref !== undefined || (p.row.referredBy !== null && p.row.status === 'waiting'));
  return referred
    ? writeReferred(client, batch, byProject, opening)
    : writePlain(client, batch, byProject, opening, queued.length > 0, guesses);
}

/**
 * A batch with no referral to resolve or credit, the usual one, in two round trips. The first carries
 * the opening statements and the INSERT, its values as literals: a simple query of several statements
 * can have no parameters. Each row's ordinal is computed by the INSERT from its project's counter, which
 * the opening statements have just moved (`o.last + v.d`, d the row's offset from the last ordinal
 * reserved), so the INSERT does not wait for the server to read the reservation first. While PostgreSQL
 * runs it, the outbox rows are built (prebuild). The second round trip writes the events, the keys'
 * last use, and COMMIT.
 */
async function writePlain(
  client: pg.PoolClient,
  batch: PendingJoin[],
  byProject: Map<string, PendingJoin[]>,
  opening: string,
  withTotals: boolean,
  guesses: SubscriberGuesses,
): Promise<{ ids: Set<string>; wrote: boolean }> {
  const rows = batch.map((p) => p.row);
  const offset = new Map<EntryRow, number>();
  for (const group of byProject.values()) for (const [i, p] of group.entries()) offset.set(p.row, i - group.length + 1);
  const { names, values } = literalRows(s.entries, rows, ['ordinal', 'k']);
  const cols = names.join(', ');
  const insert = `INSERT INTO entries (${cols}, ordinal, k)
     SELECT ${names.map((n) => `v.${n}`).join(', ')}, o.last + v.d, o.last + v.d
     FROM (VALUES ${rows.map((r, i) => `(${values[i]}, ${integer(offset.get(r)!)})`).join(', ')}) AS v(${cols}, d)
     JOIN entry_ordinals o ON o.project_id = v.project_id ORDER BY v.d
     ON CONFLICT (project_id, email_norm) WHERE deleted_at IS NULL DO NOTHING RETURNING id`;
  // Rows go in by their offset, so of two rows of a project with one email the one earlier in the
  // batch is inserted, as in a batch's array order elsewhere (the join is free to reorder them).
  // The query is on its way (query() writes it before it returns). The outbox rows are built while
  // PostgreSQL runs it: the project's ordinal lock is held from this round trip to the COMMIT, so work
  // done now is work the next batch does not wait for.
  const sent = client.query(`${opening}; ${insert}`) as unknown as Promise<pg.QueryResult[]>;
  sent.catch(() => undefined); // awaited below; not an unhandled rejection while this waits a turn
  // The batcher settles the last batch's callers once this returns (overlap, src/db/batcher.ts): their
  // answers go out first, then this batch's outbox rows are built, all while PostgreSQL works.
  await new Promise<void>((resolve) => setImmediate(resolve));
  let guessed: Prebuilt | undefined;
  try {
    guessed = prebuild(batch, guesses.of([...byProject.keys()]));
  } catch {
    guessed = undefined; // built after the answer, where an error fails the batch as it always did
  }
  const opened = await sent;
  const reserved = opened[1]!.rows as { project_id: string; last: string }[];
  const subscribers = subscribersFrom(opened[2]!.rows as { id: string; project_id: string; type: string }[]);
  guesses.learn([...byProject.keys()], subscribers);
  const before = (withTotals ? opened[3]!.rows : []) as { project_id: string; n: string }[];
  takeOrdinals(byProject, reserved);
  const ids = new Set((opened.at(-1)!.rows as { id: string }[]).map((r) => r.id));
  for (const r of rows) if (!ids.has(r.id)) positionAtInsert.delete(r); // a duplicate: no position
  const outbox =
    (guessed && ids.size === rows.length ? placed(guessed, batch, byProject, ids, before, subscribers) : undefined) ??
    outboxOf(batch, byProject, ids, before, subscribers);
  return commit(client, batch, outbox, compactOrdinals(byProject, ids, reserved), ids);
}

/**
 * A batch with a `ref` to resolve or a referrer to credit, in three round trips: the opening
 * statements, then the INSERT (a named statement whose CTEs resolve the codes and credit the
 * referrers, src/db/pg/lifecycle.ts), then the outbox rows and COMMIT.
 */
async function writeReferred(
  client: pg.PoolClient,
  batch: PendingJoin[],
  byProject: Map<string, PendingJoin[]>,
  opening: string,
): Promise<{ ids: Set<string>; wrote: boolean }> {
  const opened = (await client.query(opening)) as unknown as pg.QueryResult[];
  const reserved = opened[1]!.rows as { project_id: string; last: string }[];
  const subscribers = subscribersFrom(opened[2]!.rows as { id: string; project_id: string; type: string }[]);
  const before = (opened[3]?.rows ?? []) as { project_id: string; n: string }[];
  takeOrdinals(byProject, reserved);
  const tx = named(client);
  const rows = batch.map((p) => p.row);
  // Resolved by every attempt (a batch that failed is retried row by row), so a row carries the
  // referrer read by the attempt that committed.
  const refs = batch.some((p) => p.ref !== undefined) ? batch.map((p) => p.ref ?? null) : undefined;
  for (const p of batch) if (p.ref !== undefined) p.row.referredBy = null;
  const tail = sql`ON CONFLICT (project_id, email_norm) WHERE deleted_at IS NULL DO NOTHING RETURNING id, project_id, referred_by, status`;
  // Their `ref` codes are resolved by the INSERT (insertResolvingRefs), so the batch needs no lookup
  // before it; it credits their referrers in the same statement (insertCrediting).
  const inserting = tx.execute<{ id: string; referred_by?: string | null }>(
    insertCrediting(refs ? insertResolvingRefs(rows, refs, tail) : bulkInsert(s.entries, rows, tail)),
  );
  // While PostgreSQL runs the INSERT, the outbox rows are built as if every row will be inserted, as
  // writePlain does; not for a batch with refs (the INSERT resolves their referrers, which the
  // payloads carry); built again below when the INSERT refused a duplicate.
  const everyRow = new Set(rows.map((r) => r.id));
  let guessed: ReturnType<typeof outboxOf> | undefined;
  try {
    guessed = refs ? undefined : outboxOf(batch, byProject, everyRow, before, subscribers);
  } catch {
    // Built again below, after the INSERT, where an error fails the batch as it always did.
  }
  const inserted = await inserting;
  const ids = new Set(inserted.rows.map((r) => r.id));
  if (refs) {
    const referredBy = new Map(inserted.rows.map((r) => [r.id, r.referred_by ?? null]));
    for (const p of batch) if (p.ref !== undefined) p.row.referredBy = referredBy.get(p.row.id) ?? null;
  }
  let outbox = guessed;
  if (!outbox || ids.size !== everyRow.size) {
    for (const r of rows) if (!ids.has(r.id)) positionAtInsert.delete(r); // a duplicate: no position
    outbox = outboxOf(batch, byProject, ids, before, subscribers);
  }
  return commit(client, batch, outbox, compactOrdinals(byProject, ids, reserved), ids);
}

/** Each row's ordinal (and its k) from its project's reservation: the last ones up to `last`, in batch order. */
function takeOrdinals(byProject: Map<string, PendingJoin[]>, reserved: { project_id: string; last: string }[]) {
  for (const r of reserved) {
    const rows = byProject.get(r.project_id)!;
    let next = Number(r.last) - rows.length + 1;
    for (const p of rows) {
      p.row.ordinal = next++;
      p.row.k = p.row.ordinal;
    }
  }
}

/**
 * The closing round trip: the statements closing ordinal gaps, the events, each key's last use and
 * COMMIT; the emails (welcome or confirmation, rare on the join path) go first, in a statement of
 * their own.
 */
async function commit(
  client: pg.PoolClient,
  batch: PendingJoin[],
  { events, emails, eventsText }: Outbox,
  compacting: string[],
  ids: Set<string>,
): Promise<{ ids: Set<string>; wrote: boolean }> {
  const wroteEmails = emails.length > 0 && (await writeOutboxPg(named(client), { emails }));
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

/** A batch's outbox rows: its events someone reads, as the closing round trip's SQL text, and its emails. */
interface Outbox {
  events: OutboxEvent[];
  emails: OutboxEmail[];
  eventsText: string | undefined;
}

/**
 * Each project's webhook subscribers as its last batch read them: the guess a batch builds its event
 * payloads by while its first round trip runs (prebuild). A wrong guess costs time only: the events
 * written are picked by the subscribers the batch reads, and a payload not built ahead is built then.
 */
export class SubscriberGuesses {
  private readonly byProject = new Map<string, [string, readonly string[]][]>();

  of(projectIds: string[]): Subscribers {
    const out = new Map<string, readonly string[]>();
    for (const id of projectIds) for (const [k, hooks] of this.byProject.get(id) ?? []) out.set(k, hooks);
    return out;
  }

  learn(projectIds: string[], subscribers: Subscribers) {
    const per = new Map<string, [string, readonly string[]][]>(projectIds.map((id) => [id, []]));
    for (const [k, hooks] of subscribers) per.get(k.slice(0, k.indexOf('\n')))?.push([k, hooks]);
    if (this.byProject.size > 10_000) this.byProject.clear(); // bounded: projects come and go
    for (const [id, list] of per) this.byProject.set(id, list);
  }
}

/**
 * Outbox rows built before the batch's positions are known: each new waiting entry was given a
 * stand-in position, `tag` followed by the entry's index in the batch (4 digits), a number no payload
 * holds by chance (`tag` is 12 random digits, new for each batch). `literals` holds the payloads
 * built, as SQL literals, and `owner` each event's entry (its index in the batch).
 */
interface Prebuilt {
  tag: string;
  events: OutboxEvent[];
  owner: Map<OutboxEvent, number>;
  literals: Map<OutboxEvent, string>;
}

/**
 * The outbox rows of every row of the batch, built as if each will be inserted, with stand-in
 * positions (Prebuilt), and the payloads of the events the guessed subscribers want. None when a row
 * queues an email: an email's variables may carry the position, and are not SQL text to patch.
 */
function prebuild(batch: PendingJoin[], guess: Subscribers): Prebuilt | undefined {
  const tag = String(randomInt(100_000_000_000, 900_000_000_000));
  for (const [i, p] of batch.entries())
    if (p.row.status === 'waiting' && p.row.deletedAt === null) positionAtInsert.set(p.row, Number(standIn(tag, i)));
  const events: OutboxEvent[] = [];
  const owner = new Map<OutboxEvent, number>();
  for (const [i, p] of batch.entries()) {
    if (!p.outbox) continue;
    const w = p.outbox(p.row);
    if (w.emails?.length) return undefined;
    for (const e of w.events ?? []) {
      events.push(e);
      owner.set(e, i);
    }
  }
  const literals = new Map(wantedEvents(events, guess).map((e) => [e, literal(e.payload)]));
  return { tag, events, owner, literals };
}

/**
 * The outbox rows of a batch whose rows were all inserted, from what prebuild built: the real
 * positions go in (newPositions), the events are picked by the subscribers read, and each stand-in
 * position in a payload is replaced by its entry's. Undefined when a payload does not hold its own
 * entry's stand-in exactly once (or none, for an entry not waiting): the rows are then built again.
 */
function placed(
  guessed: Prebuilt,
  batch: PendingJoin[],
  byProject: Map<string, PendingJoin[]>,
  ids: Set<string>,
  before: { project_id: string; n: string }[],
  subscribers: Subscribers,
): Outbox | undefined {
  newPositions(waitingOf(byProject, ids), before);
  const events = wantedEvents(guessed.events, subscribers);
  const place = (e: OutboxEvent): string => {
    const text = guessed.literals.get(e) ?? literal(e.payload);
    const i = guessed.owner.get(e)!;
    const position = positionAtInsert.get(batch[i]!.row);
    const at = text.indexOf(guessed.tag);
    if (position === undefined || position === null) {
      if (at >= 0) throw new Misplaced();
      return text;
    }
    const stand = standIn(guessed.tag, i);
    if (at < 0 || !text.startsWith(stand, at) || text.includes(guessed.tag, at + 1)) throw new Misplaced();
    return text.slice(0, at) + String(position) + text.slice(at + stand.length);
  };
  try {
    return { events, emails: [], eventsText: events.length ? eventsInsertText(events, subscribers, place) : undefined };
  } catch (err) {
    if (err instanceof Misplaced) return undefined;
    throw err;
  }
}

class Misplaced extends Error {}

/** The stand-in position of the batch's `i`-th entry: `tag` and `i` in 4 digits (a batch holds at most 500). */
const standIn = (tag: string, i: number) => tag + String(i).padStart(4, '0');

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
): Outbox {
  newPositions(waitingOf(byProject, ids), before);
  const writes = batch.filter((p) => p.outbox && ids.has(p.row.id)).map((p) => p.outbox!(p.row));
  const events = wantedEvents(
    writes.flatMap((w) => w.events ?? []),
    subscribers,
  );
  const emails = writes.flatMap((w) => w.emails ?? []);
  return { events, emails, eventsText: events.length ? eventsInsertText(events, subscribers) : undefined };
}

/** The batch's new waiting entries by project (those in `ids`, the rows inserted). */
function waitingOf(byProject: Map<string, PendingJoin[]>, ids: Set<string>): PendingJoin[][] {
  return [...byProject.values()]
    .map((group) => group.filter((p) => ids.has(p.row.id) && p.row.status === 'waiting' && p.row.deletedAt === null))
    .filter((group) => group.length > 0);
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
