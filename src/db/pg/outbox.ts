// PostgreSQL side of the events layer: writeOutboxPg() for other store methods' transactions (see the
// top of src/db/outbox.ts), and the EventStore. Several instances share the outbox: fan-out and claims
// take rows with FOR UPDATE SKIP LOCKED, and a claim is a lease (next_attempt_at pushed forward), so a
// dead instance's rows become due again when the lease runs out; `finish` is fenced by the lease value.
import { and, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import {
  type ClaimedDelivery,
  claimOldest,
  addNew,
  type Destination,
  type DueCursor,
  type DueRow,
  DISABLED,
  eventIdFloor,
  type DeliveryOutcome,
  type DeliveryRow,
  type EventRow,
  type EventStore,
  type FanOutPlan,
  type NewDelivery,
  type OutboxEvent,
  type OutboxWrites,
  givenParts,
  type TemplatePatch,
  type WebhookPatch,
  type WebhookRow,
  planFanOut,
  withClaimContext,
} from '../outbox.js';
import type { Counted, PageArgs, ProjectRow } from '../store.js';
import { bulkInsert, unnestOf } from './bulk.js';
import { type Exec, integer, literal } from './named.js';
import * as s from './schema.js';

type Db = NodePgDatabase<typeof s>;
/** The database or a transaction of it (drizzle's `tx`). */
export type PgExecutor = Pick<Db, 'insert' | 'execute' | 'select' | 'update' | 'delete'>;

/** An event's columns (not `ifSubscribed`, which is how it is written, not what). */
const eventColumns = (e: OutboxEvent) => ({ id: e.id, projectId: e.projectId, type: e.type, payload: e.payload, createdAt: e.createdAt });

/**
 * Above this many `ifSubscribed` events (an invite batch: up to 10,000), the subscriptions are read
 * first and only the events someone subscribes to are built and sent; below it (a join batch) they go
 * in one INSERT that checks each row, one round trip fewer.
 */
const CHECK_FIRST = 64;

/** Whether an enabled webhook of project `p` subscribes to event type `t` (SQL expressions). */
const subscribed = (p: SQL, t: SQL) =>
  sql`EXISTS (SELECT 1 FROM webhooks w WHERE w.project_id = ${p} AND w.enabled AND w.events::jsonb ? ${t})`;

/**
 * The enabled webhooks with the types each subscribes to, one row per webhook and type; the projects
 * are picked by what follows. Read in the writing transaction.
 */
const SUBSCRIBERS = `SELECT w.id, w.project_id, t.type
  FROM webhooks w CROSS JOIN LATERAL jsonb_array_elements_text(w.events::jsonb) AS t(type) WHERE w.enabled AND w.project_id`;

/**
 * SUBSCRIBERS of the projects as a statement of a simple query (ids inlined as literals): a join batch
 * reads it with its BEGIN, after its ordinal locks, so a webhook committed before the batch's first
 * statement hears its joins.
 */
export const subscribersOf = (projectIds: string[]) => `${SUBSCRIBERS} IN (${projectIds.map(literal).join(', ')}) ORDER BY w.id`;

/** The subscribed webhooks' ids by `project\ntype` (SUBSCRIBERS' rows). */
export type Subscribers = ReadonlyMap<string, readonly string[]>;
export function subscribersFrom(rows: { id: string; project_id: string; type: string }[]): Subscribers {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const k = `${r.project_id}\n${r.type}`;
    const ids = out.get(k);
    if (ids) ids.push(r.id);
    else out.set(k, [r.id]);
  }
  return out;
}

/** The subscribers of the events' projects, read with `tx`. */
async function subscriptions(tx: Exec, events: OutboxEvent[]): Promise<Subscribers> {
  const projectIds = [...new Set(events.map((e) => e.projectId))];
  const r = await tx.execute<{ id: string; project_id: string; type: string }>(
    sql`${sql.raw(SUBSCRIBERS)} = ANY(${sql.param(projectIds)}::text[]) ORDER BY w.id`,
  );
  return subscribersFrom(r.rows);
}

/**
 * Appends events and emails to the outbox with `tx`, the caller's transaction. The events are fanned
 * out by the dispatcher, on its own connection. A join batch does not come here for its events: it
 * reads its projects' webhooks with its BEGIN (`subscribersOf`) and sends its events, webhook-only ones
 * already fanned out with their deliveries, with its COMMIT (`eventsInsertText`); only its emails
 * come here.
 */
export async function writeOutboxPg(tx: Exec, writes: OutboxWrites | undefined): Promise<boolean> {
  let n = 0;
  const events = writes?.events ?? [];
  let always: OutboxEvent[] = events.filter((e) => !e.ifSubscribed);
  let ifSubscribed = events.filter((e) => e.ifSubscribed);
  if (ifSubscribed.length > CHECK_FIRST) {
    always = wantedEvents(events, await subscriptions(tx, ifSubscribed));
    ifSubscribed = [];
  }
  if (always.length) {
    await tx.execute(bulkInsert(s.events, always.map(eventColumns))); // one array per column, not one parameter per cell
    n += always.length;
  }
  if (ifSubscribed.length) {
    // Only the events an enabled webhook of their project subscribes to, as this statement sees the
    // webhooks (committed before it): nothing else would ever read them.
    const { names, unnest } = unnestOf(s.events, ifSubscribed.map(eventColumns));
    const r = await tx.execute(
      sql`INSERT INTO events (${names}) SELECT u.* FROM unnest(${unnest}) AS u(${names})
          WHERE ${subscribed(sql`u.project_id`, sql`u.type`)}`,
    );
    n += r.rowCount ?? 0;
  }
  if (writes?.emails?.length) {
    await tx.execute(
      bulkInsert(
        s.deliveries,
        writes.emails.map((m) => ({
          id: m.id,
          projectId: m.projectId,
          kind: 'email',
          type: m.template,
          recipient: m.recipient,
          data: m.data,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: m.createdAt,
          createdAt: m.createdAt,
          updatedAt: m.createdAt,
        })),
      ),
    );
    n += writes.emails.length;
  }
  return n > 0;
}

/**
 * The events to write, given the webhook `subscribers` read in the writing transaction: every event
 * that is not `ifSubscribed`, and those that are when a webhook of their project subscribes to their type.
 */
export function wantedEvents(events: readonly OutboxEvent[], subscribers: Subscribers): OutboxEvent[] {
  return events.filter((e) => !e.ifSubscribed || subscribers.has(`${e.projectId}\n${e.type}`));
}

/**
 * The INSERTs of `events` as SQL text with their values as literals, for a simple query of several
 * statements: the join batch sends them with its closing statements and COMMIT, one round trip fewer
 * than a statement of its own (src/db/pg/store.ts).
 *
 * An `ifSubscribed` event is read by webhooks only, so its fan-out is decided here, as on SQLite: it is
 * written already fanned out, with one pending delivery per webhook in `subscribers` (read in the same
 * transaction). The dispatcher then only claims and sends them; its fan-out would otherwise read the
 * event back, lock it, and rewrite the whole row to mark it (docs/performance.md, round twenty-seven).
 * Any other event (one that may become a sign-up notice) is left to the fan-out.
 */
export function eventsInsertText(
  events: readonly OutboxEvent[],
  subscribers: Subscribers,
  /** An event's payload as an SQL literal; the join batch gives those it built while its INSERT ran. */
  payloadLiteral: (e: OutboxEvent) => string = (e) => literal(e.payload),
): string {
  const plain: string[] = [];
  const fanned: string[] = [];
  const deliveries: string[] = [];
  for (const e of events) {
    const values = `${literal(e.id)}, ${literal(e.projectId)}, ${literal(e.type)}, ${payloadLiteral(e)}, ${integer(e.createdAt)}`;
    const hooks = e.ifSubscribed ? subscribers.get(`${e.projectId}\n${e.type}`) : undefined;
    if (!e.ifSubscribed || !hooks?.length) {
      plain.push(`(${values})`);
      continue;
    }
    fanned.push(`(${values}, true)`);
    const at = integer(e.createdAt);
    for (const webhookId of hooks) {
      deliveries.push(
        `(${literal(e.deliveryId())}, ${literal(e.projectId)}, 'webhook', ${literal(webhookId)}, ${literal(e.id)}, ${literal(e.type)}, 'pending', 0, ${at}, ${at}, ${at})`,
      );
    }
  }
  const out: string[] = [];
  if (plain.length) out.push(`INSERT INTO events (id, project_id, type, payload, created_at) VALUES ${plain.join(', ')}`);
  if (fanned.length) out.push(`INSERT INTO events (id, project_id, type, payload, created_at, fanned_out) VALUES ${fanned.join(', ')}`);
  if (deliveries.length) {
    out.push(
      `INSERT INTO deliveries (id, project_id, kind, webhook_id, event_id, type, status, attempts, next_attempt_at, created_at, updated_at) VALUES ${deliveries.join(', ')}`,
    );
  }
  return out.join('; ');
}

/**
 * The two kinds of destination and their due index (migration 0013): a webhook's pending rows by
 * webhook id, a project's pending emails by project id.
 */
const KINDS = {
  hook: { col: sql.raw('webhook_id'), which: sql.raw('webhook_id IS NOT NULL') },
  mail: { col: sql.raw('project_id'), which: sql.raw('webhook_id IS NULL') },
};
type DestKind = keyof typeof KINDS;

/** One destination's (`d.dest`) oldest due rows, up to `per`: the probe of a walk and of the hot destinations. */
const dueProbe = (kind: DestKind, now: number, per: number) => sql`
  SELECT y.id, y.project_id, y.webhook_id, y.next_attempt_at FROM deliveries y
  WHERE y.status = 'pending' AND y.${KINDS[kind].which} AND y.${KINDS[kind].col} = d.dest AND y.next_attempt_at <= ${now}
  ORDER BY y.next_attempt_at LIMIT ${per}::bigint`;

const DELIVERY_COLS = sql.raw(`id, project_id AS "projectId", kind, webhook_id AS "webhookId", event_id AS "eventId", type,
  recipient, data, status, attempts, last_status_code AS "lastStatusCode", last_error AS "lastError",
  next_attempt_at::float8 AS "nextAttemptAt", created_at::float8 AS "createdAt", updated_at::float8 AS "updatedAt"`);

export class PgEventStore implements EventStore {
  constructor(
    private readonly db: Db,
    private readonly written: () => void,
    /** The pool as named statements (named.ts), for the dispatcher's claim, run every round. */
    private readonly prepared: Exec,
  ) {}

  // ---- webhooks ----
  async insertWebhook(row: WebhookRow) {
    await this.db.insert(s.webhooks).values(row);
  }
  async listWebhooks(projectId: string, page: PageArgs): Promise<Counted<WebhookRow>> {
    const where = eq(s.webhooks.projectId, projectId);
    const [t] = await this.db.select({ n: count() }).from(s.webhooks).where(where);
    const rows = await this.db.select().from(s.webhooks).where(where).orderBy(desc(s.webhooks.id)).limit(page.limit).offset(page.offset);
    return { rows, total: t?.n ?? 0 };
  }
  async webhookInProject(projectId: string, webhookId: string) {
    const [r] = await this.db
      .select()
      .from(s.webhooks)
      .where(and(eq(s.webhooks.projectId, projectId), eq(s.webhooks.id, webhookId)));
    return r;
  }
  async updateWebhook(projectId: string, webhookId: string, patch: WebhookPatch, now: number) {
    return this.db.transaction(async (tx) => {
      const [r] = await tx
        .update(s.webhooks)
        .set({ ...patch, updatedAt: now })
        .where(and(eq(s.webhooks.projectId, projectId), eq(s.webhooks.id, webhookId)))
        .returning();
      // Disabling gives up its pending retries now (they would wait for their next attempt, up to 10 h).
      if (r && patch.enabled === false) {
        await tx
          .update(s.deliveries)
          .set({ status: 'failed', lastError: DISABLED, updatedAt: now })
          .where(and(eq(s.deliveries.webhookId, webhookId), eq(s.deliveries.status, 'pending')));
      }
      return r;
    });
  }
  async deleteWebhook(projectId: string, webhookId: string) {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .delete(s.webhooks)
        .where(and(eq(s.webhooks.projectId, projectId), eq(s.webhooks.id, webhookId)))
        .returning();
      if (row) await tx.delete(s.deliveries).where(eq(s.deliveries.webhookId, webhookId));
      return row;
    });
  }

  // ---- delivery log ----
  async listDeliveries(webhookId: string, page: PageArgs) {
    return this.pagedDeliveries(eq(s.deliveries.webhookId, webhookId), page);
  }
  async deliveryOfWebhook(webhookId: string, deliveryId: string) {
    const [r] = await this.db
      .select()
      .from(s.deliveries)
      .where(and(eq(s.deliveries.webhookId, webhookId), eq(s.deliveries.id, deliveryId)));
    return r as DeliveryRow | undefined;
  }
  async listEmails(projectId: string, page: PageArgs) {
    return this.pagedDeliveries(and(eq(s.deliveries.projectId, projectId), eq(s.deliveries.kind, 'email'))!, page);
  }
  private async pagedDeliveries(where: ReturnType<typeof eq>, page: PageArgs): Promise<Counted<DeliveryRow>> {
    const [t] = await this.db.select({ n: count() }).from(s.deliveries).where(where);
    const rows = await this.db
      .select()
      .from(s.deliveries)
      .where(where)
      .orderBy(desc(s.deliveries.id))
      .limit(page.limit)
      .offset(page.offset);
    return { rows: rows as DeliveryRow[], total: t?.n ?? 0 };
  }

  // ---- templates ----
  async templates(projectId: string) {
    return this.db.select().from(s.emailTemplates).where(eq(s.emailTemplates.projectId, projectId));
  }
  async putTemplates(patches: TemplatePatch[]) {
    if (!patches.length) return;
    // An upsert per template that sets only the parts given: it updates the row under its lock, so a
    // concurrent PUT of another part is kept (a whole row written from an earlier read lost it).
    await this.db.transaction(async (tx) => {
      for (const p of patches) {
        await tx
          .insert(s.emailTemplates)
          .values({ subject: null, text: null, html: null, ...p })
          .onConflictDoUpdate({
            target: [s.emailTemplates.projectId, s.emailTemplates.name],
            set: { ...givenParts(p), updatedAt: p.updatedAt },
          });
      }
    });
  }
  async deleteTemplates(projectId: string, names: string[]) {
    if (!names.length) return;
    await this.db.delete(s.emailTemplates).where(and(eq(s.emailTemplates.projectId, projectId), inArray(s.emailTemplates.name, names)));
  }

  // ---- dispatcher ----
  async append(writes: OutboxWrites, deliveries: NewDelivery[] = [], fanned = false) {
    await this.db.transaction(async (tx) => {
      await writeOutboxPg(tx, writes);
      if (fanned && writes.events?.length)
        await tx
          .update(s.events)
          .set({ fannedOut: true })
          .where(
            inArray(
              s.events.id,
              writes.events.map((e) => e.id),
            ),
          );
      await insertDeliveries(tx, deliveries);
    });
    this.written();
  }

  async fanOut(limit: number, plan: FanOutPlan) {
    return this.db.transaction(async (tx) => {
      const r = await tx.execute<EventRow & Record<string, unknown>>(sql`
        SELECT id, project_id AS "projectId", type, payload, created_at::float8 AS "createdAt" FROM events
        WHERE fanned_out = false ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`);
      const events = r.rows;
      if (!events.length) return 0;
      const projectIds = [...new Set(events.map((e) => e.projectId))];
      const hooks = await tx
        .select()
        .from(s.webhooks)
        .where(and(inArray(s.webhooks.projectId, projectIds), eq(s.webhooks.enabled, true)));
      const projects = (await tx.select().from(s.projects).where(inArray(s.projects.id, projectIds))) as ProjectRow[];
      const { deliveries, keep, drop } = planFanOut(events, hooks, projects, plan);
      await insertDeliveries(tx, deliveries);
      if (keep.length) await tx.update(s.events).set({ fannedOut: true }).where(inArray(s.events.id, keep));
      if (drop.length) await tx.delete(s.events).where(inArray(s.events.id, drop));
      return events.length;
    });
  }

  async dueCandidates(now: number, cursor: DueCursor, destinations: number, perDestination: number, hot: readonly Destination[] = []) {
    const [hook, mail, hotRows] = await Promise.all([
      this.walkDue('hook', now, cursor.hook, destinations, perDestination),
      this.walkDue('mail', now, cursor.mail, destinations, perDestination),
      hot.length ? this.hotDue(now, hot, perDestination) : [],
    ]);
    const rows = [...hook.rows, ...mail.rows];
    addNew(rows, hotRows);
    return { rows, cursor: { hook: hook.cursor, mail: mail.cursor }, wrapped: { hook: hook.wrapped, mail: mail.wrapped } };
  }

  /**
   * As SQLite's walk: the destinations with pending rows after `from`, then from the start up to
   * `from`, until `max` were looked at, with each one's due rows. Each stretch is one statement: a skip
   * scan of the due index (migration 0013, one seek per destination) and a probe of each destination.
   */
  private async walkDue(kind: DestKind, now: number, from: string, max: number, per: number) {
    const rows: DueRow[] = [];
    const first = await this.dueStretch(kind, now, from, null, max, per, rows);
    if (first.seen === max) return { rows, cursor: first.last, wrapped: false };
    if (from === '') return { rows, cursor: '', wrapped: true };
    const rest = await this.dueStretch(kind, now, '', from, max - first.seen, per, rows);
    return { rows, cursor: rest.seen === max - first.seen ? rest.last : '', wrapped: true };
  }

  /** The due rows of the hot destinations, up to `per` each, in one statement. */
  private async hotDue(now: number, hot: readonly Destination[], per: number): Promise<DueRow[]> {
    const hooks = hot.filter((d) => d.webhookId !== null).map((d) => d.webhookId!);
    const mails = hot.filter((d) => d.webhookId === null).map((d) => d.projectId);
    const r = await this.prepared.execute<DueRow & Record<string, unknown>>(sql`
      SELECT c.id, c.project_id AS "projectId", c.webhook_id AS "webhookId", c.next_attempt_at::float8 AS "nextAttemptAt"
      FROM unnest(${sql.param(hooks)}::text[]) AS d(dest) CROSS JOIN LATERAL (${dueProbe('hook', now, per)}) c
      UNION ALL
      SELECT c.id, c.project_id, c.webhook_id, c.next_attempt_at::float8
      FROM unnest(${sql.param(mails)}::text[]) AS d(dest) CROSS JOIN LATERAL (${dueProbe('mail', now, per)}) c`);
    return r.rows;
  }

  private async dueStretch(
    kind: DestKind,
    now: number,
    after: string,
    upTo: string | null,
    max: number,
    per: number,
    rows: DueRow[],
  ): Promise<{ seen: number; last: string }> {
    const { col, which } = KINDS[kind];
    const bound = upTo === null ? sql`` : sql` AND x.${col} <= ${upTo}`;
    // Named: run on every claim, planned once per connection.
    const r = await this.prepared.execute<{
      dest: string;
      id: string | null;
      projectId: string;
      webhookId: string | null;
      nextAttemptAt: number;
    }>(sql`
      WITH RECURSIVE d(dest, n) AS (
        (SELECT x.${col}, 1::bigint FROM deliveries x WHERE x.status = 'pending' AND x.${which} AND x.${col} > ${after}${bound}
         ORDER BY x.${col} LIMIT 1)
        UNION ALL
        SELECT (SELECT x.${col} FROM deliveries x
                WHERE x.status = 'pending' AND x.${which} AND x.${col} > d.dest${bound} ORDER BY x.${col} LIMIT 1), d.n + 1
        FROM d WHERE d.dest IS NOT NULL AND d.n < ${max}::bigint
      )
      SELECT d.dest, c.id, c.project_id AS "projectId", c.webhook_id AS "webhookId", c.next_attempt_at::float8 AS "nextAttemptAt"
      FROM d LEFT JOIN LATERAL (${dueProbe(kind, now, per)}) c ON true
      WHERE d.dest IS NOT NULL
      ORDER BY d.dest, c.next_attempt_at`);
    let seen = 0;
    let last = '';
    for (const row of r.rows) {
      if (row.dest !== last) {
        seen++;
        last = row.dest;
      }
      if (row.id !== null) rows.push({ id: row.id, projectId: row.projectId, webhookId: row.webhookId, nextAttemptAt: row.nextAttemptAt });
    }
    return { seen, last };
  }

  async claimPicked(ids: string[], now: number, leaseMs: number) {
    if (!ids.length) return [];
    const lease = now + leaseMs;
    // No row was locked when the candidates were read: the UPDATE takes those still pending and due
    // (another instance may have claimed some since; under READ COMMITTED a row it is claiming right
    // now is re-checked after its commit, and left to it).
    const r = await this.prepared.execute<DeliveryRow & Record<string, unknown>>(sql`
      UPDATE deliveries SET next_attempt_at = ${lease}
      WHERE id = ANY(${sql.param(ids)}::text[]) AND status = 'pending' AND next_attempt_at <= ${now}
      RETURNING ${DELIVERY_COLS}`);
    return this.withContext(r.rows, lease);
  }

  async claimDue(now: number, limit: number, leaseMs: number) {
    return claimOldest(this, now, limit, leaseMs);
  }

  async claimOne(webhookId: string, deliveryId: string, now: number, leaseMs: number) {
    const lease = now + leaseMs;
    const r = await this.db.execute<DeliveryRow & Record<string, unknown>>(sql`
      UPDATE deliveries SET status = 'pending', next_attempt_at = ${lease}, updated_at = ${now}
      WHERE id = ${deliveryId} AND webhook_id = ${webhookId}
      RETURNING ${DELIVERY_COLS}`);
    return (await this.withContext(r.rows, lease))[0];
  }

  private async withContext(rows: DeliveryRow[], lease: number): Promise<ClaimedDelivery[]> {
    if (!rows.length) return [];
    const eventIds = [...new Set(rows.map((r) => r.eventId).filter((x): x is string => !!x))];
    const hookIds = [...new Set(rows.map((r) => r.webhookId).filter((x): x is string => !!x))];
    const [evs, hks] = await Promise.all([
      eventIds.length
        ? this.db.select({ id: s.events.id, payload: s.events.payload }).from(s.events).where(inArray(s.events.id, eventIds))
        : [],
      hookIds.length ? this.db.select().from(s.webhooks).where(inArray(s.webhooks.id, hookIds)) : [],
    ]);
    const payloads = new Map(evs.map((e) => [e.id, e.payload]));
    const hooks = new Map(hks.map((h) => [h.id, h]));
    return withClaimContext(rows, lease, payloads, hooks);
  }

  async finish(id: string, lease: number, o: DeliveryOutcome, now: number) {
    const r = await this.db.execute(sql`
      UPDATE deliveries SET status = ${o.status}, attempts = ${o.attempts}, last_status_code = ${o.lastStatusCode},
        last_error = ${o.lastError}, next_attempt_at = ${o.nextAttemptAt},
        data = CASE WHEN ${o.clearData} THEN NULL ELSE data END, updated_at = ${now}
      WHERE id = ${id} AND status = 'pending' AND next_attempt_at = ${lease}`);
    return r.rowCount === 1;
  }

  async signupsBetween(projectId: string, from: number, to: number, limit: number, ids: { from: string; to: string }) {
    // As SQLite's: the ids' time part bounds the index scan; never pending, never imported (no status token).
    const at = sql`coalesce(confirmed_at, created_at)`;
    const where = sql`project_id = ${projectId} AND deleted_at IS NULL
      AND id >= ${ids.from} AND id < ${ids.to}
      AND status <> 'pending' AND status_token_hash IS NOT NULL AND ${at} >= ${from} AND ${at} < ${to}`;
    const [c, r] = await Promise.all([
      this.db.execute<{ n: string }>(sql`SELECT count(*) AS n FROM entries WHERE ${where}`),
      this.db.execute<{ email: string; name: string | null }>(
        sql`SELECT email, name FROM entries WHERE ${where} ORDER BY ${at} LIMIT ${limit}`,
      ),
    ]);
    return { count: Number(c.rows[0]?.n ?? 0), rows: r.rows };
  }

  async releaseClaims(_now: number, _leaseMs: number) {
    return 0; // several instances may share the database: a claim may be another's, in flight
  }
  async dropPendingEmails() {
    const r = await this.db.execute(sql`DELETE FROM deliveries WHERE webhook_id IS NULL AND kind = 'email' AND status = 'pending'`);
    return r.rowCount ?? 0;
  }

  async backlog(cap = 1_000_000) {
    const r = await this.db.execute<{ n: string }>(sql`
      SELECT (SELECT count(*) FROM (SELECT 1 FROM events WHERE fanned_out = false LIMIT ${cap}) a)
           + (SELECT count(*) FROM (SELECT 1 FROM deliveries WHERE status = 'pending' AND webhook_id IS NOT NULL LIMIT ${cap}) b)
           + (SELECT count(*) FROM (SELECT 1 FROM deliveries WHERE status = 'pending' AND webhook_id IS NULL LIMIT ${cap}) c) AS n`);
    return Math.min(cap, Number(r.rows[0]?.n ?? 0));
  }

  async prune(before: number) {
    await this.db.execute(sql`DELETE FROM deliveries WHERE status <> 'pending' AND updated_at < ${before}`);
    await this.db.execute(sql`
      DELETE FROM events WHERE fanned_out = true AND id < ${eventIdFloor(before)}
        AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id AND d.status = 'pending')`);
  }
}

async function insertDeliveries(tx: PgExecutor, rows: NewDelivery[]) {
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500).map((d) => ({ ...d, status: 'pending', attempts: 0, updatedAt: d.createdAt }));
    await tx.execute(bulkInsert(s.deliveries, chunk, sql`ON CONFLICT DO NOTHING`)); // digest rows have fixed ids
  }
}
