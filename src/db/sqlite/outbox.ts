// SQLite side of the events layer: writeOutbox() for other store methods' transactions (see the top of
// src/db/outbox.ts), and the EventStore the routes and the dispatcher use. One SQLite file is served by
// one process, so claims need no locking beyond the write transaction; the lease still fences a claim.
import type Database from 'better-sqlite3';
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import {
  type ClaimedDelivery,
  claimOldest,
  DISABLED,
  addNew,
  type Destination,
  type DueCursor,
  type DueRow,
  eventIdFloor,
  type DeliveryOutcome,
  type DeliveryRow,
  type EventRow,
  type EventStore,
  type FanOutPlan,
  type NewDelivery,
  type OutboxWrites,
  givenParts,
  type TemplatePatch,
  type WebhookPatch,
  type WebhookRow,
  planFanOut,
  withClaimContext,
} from '../outbox.js';
import type { Counted, PageArgs, ProjectRow } from '../store.js';
import * as s from './schema.js';
import { Statements } from './statements.js';
import { unsynced } from './sync.js';
import type { WalSync } from './wal-sync.js';

interface Stmts {
  event: Database.Statement;
  fannedEvent: Database.Statement;
  subscribers: Database.Statement;
  hookDelivery: Database.Statement;
  email: Database.Statement;
}
const stmtCache = new WeakMap<Database.Database, Stmts>();

const EVENT_COLUMNS =
  'INSERT INTO events (id, project_id, type, payload, created_at, fanned_out) VALUES (@id, @projectId, @type, @payload, @createdAt,';

function stmts(db: Database.Database): Stmts {
  let st = stmtCache.get(db);
  if (!st) {
    st = {
      event: db.prepare(`${EVENT_COLUMNS} 0)`),
      fannedEvent: db.prepare(`${EVENT_COLUMNS} 1)`),
      // The enabled webhooks of the project that subscribe to the type: read in the writing
      // transaction, so a webhook committed before it gets the event, and one after does not.
      subscribers: db
        .prepare(
          `SELECT w.id FROM webhooks w
           WHERE w.project_id = ? AND w.enabled = 1 AND EXISTS (SELECT 1 FROM json_each(w.events) t WHERE t.value = ?)
           ORDER BY w.id`,
        )
        .pluck(),
      // The same row the dispatcher's fan-out makes (src/core/fanout.ts): due at once.
      hookDelivery: db.prepare(
        `INSERT INTO deliveries (id, project_id, kind, webhook_id, event_id, type, status, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, 'webhook', ?, ?, ?, 'pending', 0, ?, ?, ?)`,
      ),
      email: db.prepare(
        `INSERT INTO deliveries (id, project_id, kind, type, recipient, data, status, attempts, next_attempt_at, created_at, updated_at)
         VALUES (@id, @projectId, 'email', @template, @recipient, @data, 'pending', 0, @createdAt, @createdAt, @createdAt)`,
      ),
    };
    stmtCache.set(db, st);
  }
  return st;
}

/**
 * Appends events and emails to the outbox. Synchronous: call it inside the caller's `sqlite.transaction`.
 * An `ifSubscribed` event is written only when an enabled webhook of its project subscribes to its type,
 * and fanned out right here, one delivery per such webhook (only webhooks read it, so this is the whole
 * of its fan-out): the dispatcher's fan-out skips it.
 * `heard` caches those webhooks per project and type; pass one map per transaction to share it between
 * the writes of that transaction (a join batch): no other writer can add or change a webhook while the
 * transaction holds the write lock, so the answer cannot change within it.
 */
export function writeOutbox(db: Database.Database, writes: OutboxWrites | undefined, heard = new Map<string, string[]>()): boolean {
  if (!writes) return false;
  const st = stmts(db);
  let n = 0;
  for (const e of writes.events ?? []) {
    if (!e.ifSubscribed) {
      n += st.event.run(e).changes;
      continue;
    }
    const k = `${e.projectId}\n${e.type}`;
    let hooks = heard.get(k);
    if (hooks === undefined) {
      hooks = st.subscribers.all(e.projectId, e.type) as string[];
      heard.set(k, hooks);
    }
    if (!hooks.length) continue; // nothing would read it: not written (and its payload never built)
    n += st.fannedEvent.run(e).changes;
    for (const webhookId of hooks) {
      st.hookDelivery.run(e.deliveryId(), e.projectId, webhookId, e.id, e.type, e.createdAt, e.createdAt, e.createdAt);
    }
  }
  for (const m of writes.emails ?? []) n += st.email.run(m).changes;
  return n > 0;
}

/**
 * The two kinds of destination and their due index (migration 0016): a webhook's pending rows by
 * webhook id, a project's pending emails by project id. INDEXED BY: without statistics the planner
 * would take deliveries_webhook_idx for `webhook_id IS NULL` and read every email row ever sent.
 */
const KINDS = {
  hook: { from: 'deliveries', col: 'webhook_id', which: 'webhook_id IS NOT NULL' },
  mail: { from: 'deliveries INDEXED BY deliveries_mail_due_idx', col: 'project_id', which: 'webhook_id IS NULL' },
} as const;
type DestKind = keyof typeof KINDS;
const kindOf = (d: Destination): DestKind => (d.webhookId === null ? 'mail' : 'hook');
const destId = (d: Destination): string => d.webhookId ?? d.projectId;

const DELIVERY_COLS = `id, project_id AS projectId, kind, webhook_id AS webhookId, event_id AS eventId, type, recipient, data,
  status, attempts, last_status_code AS lastStatusCode, last_error AS lastError, next_attempt_at AS nextAttemptAt,
  created_at AS createdAt, updated_at AS updatedAt`;

export class SqliteEventStore implements EventStore {
  constructor(
    private readonly sqlite: Database.Database,
    private readonly db: BetterSQLite3Database<typeof s>,
    private readonly written: () => void,
    /** The log's fsync (wal-sync.ts), when join batches commit without one of their own. */
    private readonly walSync?: WalSync,
  ) {
    this.statements = new Statements(sqlite);
  }

  // The dispatcher's statements run after every join batch: prepared once.
  private readonly statements: Statements;
  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  // ---- webhooks ----
  async insertWebhook(row: WebhookRow) {
    this.db.insert(s.webhooks).values(row).run();
  }
  async listWebhooks(projectId: string, page: PageArgs): Promise<Counted<WebhookRow>> {
    const where = eq(s.webhooks.projectId, projectId);
    const total = this.db.select({ n: count() }).from(s.webhooks).where(where).get()?.n ?? 0;
    const rows = this.db.select().from(s.webhooks).where(where).orderBy(desc(s.webhooks.id)).limit(page.limit).offset(page.offset).all();
    return { rows, total };
  }
  async webhookInProject(projectId: string, webhookId: string) {
    return this.db
      .select()
      .from(s.webhooks)
      .where(and(eq(s.webhooks.projectId, projectId), eq(s.webhooks.id, webhookId)))
      .get();
  }
  async updateWebhook(projectId: string, webhookId: string, patch: WebhookPatch, now: number) {
    return this.sqlite.transaction(() => {
      const row = this.db
        .update(s.webhooks)
        .set({ ...patch, updatedAt: now })
        .where(and(eq(s.webhooks.projectId, projectId), eq(s.webhooks.id, webhookId)))
        .returning()
        .get();
      // Disabling gives up its pending retries now (they would wait for their next attempt, up to 10 h).
      if (row && patch.enabled === false) {
        this.db
          .update(s.deliveries)
          .set({ status: 'failed', lastError: DISABLED, updatedAt: now })
          .where(and(eq(s.deliveries.webhookId, webhookId), eq(s.deliveries.status, 'pending')))
          .run();
      }
      return row;
    })();
  }
  async deleteWebhook(projectId: string, webhookId: string) {
    return this.sqlite.transaction(() => {
      const row = this.db
        .delete(s.webhooks)
        .where(and(eq(s.webhooks.projectId, projectId), eq(s.webhooks.id, webhookId)))
        .returning()
        .get();
      if (row) this.db.delete(s.deliveries).where(eq(s.deliveries.webhookId, webhookId)).run();
      return row;
    })();
  }

  // ---- delivery log ----
  async listDeliveries(webhookId: string, page: PageArgs): Promise<Counted<DeliveryRow>> {
    return this.pagedDeliveries(eq(s.deliveries.webhookId, webhookId), page);
  }
  async deliveryOfWebhook(webhookId: string, deliveryId: string) {
    return this.db
      .select()
      .from(s.deliveries)
      .where(and(eq(s.deliveries.webhookId, webhookId), eq(s.deliveries.id, deliveryId)))
      .get() as DeliveryRow | undefined;
  }
  async listEmails(projectId: string, page: PageArgs) {
    // `kind = 'email'` spelled out, not bound: it is the condition of the partial index (migration 0013).
    return this.pagedDeliveries(and(eq(s.deliveries.projectId, projectId), sql`${s.deliveries.kind} = 'email'`)!, page);
  }
  private pagedDeliveries(where: ReturnType<typeof eq>, page: PageArgs): Counted<DeliveryRow> {
    const total = this.db.select({ n: count() }).from(s.deliveries).where(where).get()?.n ?? 0;
    const rows = this.db
      .select()
      .from(s.deliveries)
      .where(where)
      .orderBy(desc(s.deliveries.id))
      .limit(page.limit)
      .offset(page.offset)
      .all();
    return { rows: rows as DeliveryRow[], total };
  }

  // ---- templates ----
  async templates(projectId: string) {
    return this.db.select().from(s.emailTemplates).where(eq(s.emailTemplates.projectId, projectId)).all();
  }
  async putTemplates(patches: TemplatePatch[]) {
    this.sqlite.transaction(() => {
      for (const p of patches) {
        this.db
          .insert(s.emailTemplates)
          .values({ subject: null, text: null, html: null, ...p })
          .onConflictDoUpdate({
            target: [s.emailTemplates.projectId, s.emailTemplates.name],
            set: { ...givenParts(p), updatedAt: p.updatedAt },
          })
          .run();
      }
    })();
  }
  async deleteTemplates(projectId: string, names: string[]) {
    if (!names.length) return;
    this.db
      .delete(s.emailTemplates)
      .where(and(eq(s.emailTemplates.projectId, projectId), inArray(s.emailTemplates.name, names)))
      .run();
  }

  // ---- dispatcher ----
  async append(writes: OutboxWrites, deliveries: NewDelivery[] = [], fanned = false) {
    this.sqlite.transaction(() => {
      writeOutbox(this.sqlite, writes);
      if (fanned) for (const e of writes.events ?? []) this.db.update(s.events).set({ fannedOut: true }).where(eq(s.events.id, e.id)).run();
      this.insertDeliveries(deliveries);
    })();
    this.written();
  }

  private insertDeliveries(rows: NewDelivery[]) {
    if (!rows.length) return;
    // One prepared statement per row (digest rows have fixed ids: a second one is ignored).
    const insert = this.stmt(
      `INSERT INTO deliveries (id, project_id, kind, webhook_id, event_id, type, recipient, data, status, attempts,
         next_attempt_at, created_at, updated_at)
       VALUES (@id, @projectId, @kind, @webhookId, @eventId, @type, @recipient, @data, 'pending', 0, @nextAttemptAt,
         @createdAt, @createdAt)
       ON CONFLICT DO NOTHING`,
    );
    for (const d of rows) insert.run(d);
  }

  async fanOut(limit: number, plan: FanOutPlan) {
    // Dropped events hold subscribers' data: secure_delete overwrites their freed cells, so an entry
    // erased later (lifecycle "leave") does not linger in free pages of the file.
    // Not fsynced (sync.ts): losing a fan-out on a power cut leaves its events un-fanned, done again.
    // Most rounds find nothing (a join's webhook-only event is written fanned out): one read of the
    // partial index answers that, without the write lock, the two pragmas or a commit. An event
    // committed right after this read is found by the next round, as it would be had the
    // transaction's own SELECT run first (every outbox write wakes the dispatcher, which also polls).
    if (this.stmt('SELECT 1 FROM events WHERE fanned_out = 0 LIMIT 1').get() === undefined) return 0;
    return this.secureDelete(() => unsynced(this.sqlite, () => this.fanOutTx(limit, plan)));
  }

  private secureDelete<T>(fn: () => T): T {
    this.stmt('PRAGMA secure_delete = ON').run();
    try {
      return fn();
    } finally {
      this.stmt('PRAGMA secure_delete = OFF').run();
    }
  }

  private fanOutTx(limit: number, plan: FanOutPlan) {
    return this.sqlite
      .transaction(() => {
        const events = this.stmt(
          `SELECT id, project_id AS projectId, type, payload, created_at AS createdAt FROM events WHERE fanned_out = 0 ORDER BY id LIMIT ?`,
        ).all(limit) as EventRow[];
        if (!events.length) return 0;
        const projectIds = [...new Set(events.map((e) => e.projectId))];
        const hooks = this.db
          .select()
          .from(s.webhooks)
          .where(and(inArray(s.webhooks.projectId, projectIds), eq(s.webhooks.enabled, true)))
          .all();
        const projects = this.db.select().from(s.projects).where(inArray(s.projects.id, projectIds)).all() as ProjectRow[];
        const { deliveries, keep, drop } = planFanOut(events, hooks, projects, plan);
        const markStmt = this.stmt('UPDATE events SET fanned_out = 1 WHERE id = ?');
        const dropStmt = this.stmt('DELETE FROM events WHERE id = ?');
        for (const id of keep) markStmt.run(id);
        for (const id of drop) dropStmt.run(id);
        this.insertDeliveries(deliveries);
        return events.length;
      })
      .immediate();
  }

  async dueCandidates(now: number, cursor: DueCursor, destinations: number, perDestination: number, hot: readonly Destination[] = []) {
    const rows: DueRow[] = [];
    const hook = this.walkDue(rows, 'hook', now, cursor.hook, destinations, perDestination);
    const mail = this.walkDue(rows, 'mail', now, cursor.mail, destinations, perDestination);
    addNew(
      rows,
      hot.flatMap((d) => this.dueOf(kindOf(d)).all(destId(d), now, perDestination) as DueRow[]),
    );
    return { rows, cursor: { hook: hook.at, mail: mail.at }, wrapped: { hook: hook.wrapped, mail: mail.wrapped } };
  }

  /** The next destination of a kind with pending rows after the one given (one seek of its due index). */
  private nextOf(kind: DestKind) {
    const k = KINDS[kind];
    return this.stmt(
      `SELECT ${k.col} AS id FROM ${k.from} WHERE status = 'pending' AND ${k.which} AND ${k.col} > ? ORDER BY ${k.col} LIMIT 1`,
    );
  }

  /** One destination's oldest due rows: (destination, now, limit). */
  private dueOf(kind: DestKind) {
    const k = KINDS[kind];
    return this.stmt(`SELECT id, project_id AS projectId, webhook_id AS webhookId, next_attempt_at AS nextAttemptAt FROM ${k.from}
      WHERE status = 'pending' AND ${k.which} AND ${k.col} = ? AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?`);
  }

  /**
   * Walks the destinations of a kind with pending rows after `from` (one index seek each, migration
   * 0016), then from the start up to `from`, until `max` were looked at; adds each one's due rows to
   * `rows`. Returns the last destination looked at ('' when every one was), and whether the end was passed.
   */
  private walkDue(rows: DueRow[], kind: DestKind, now: number, from: string, max: number, per: number): { at: string; wrapped: boolean } {
    const next = this.nextOf(kind);
    const due = this.dueOf(kind);
    let at = from;
    let wrapped = false;
    for (let seen = 0; seen < max; ) {
      const r = next.get(at) as { id: string } | undefined;
      if (!r || (wrapped && r.id > from)) {
        if (wrapped || from === '') return { at: '', wrapped: true };
        wrapped = true;
        at = '';
        continue;
      }
      at = r.id;
      seen++;
      for (const d of due.all(r.id, now, per) as DueRow[]) rows.push(d);
    }
    return { at, wrapped };
  }

  async claimPicked(ids: string[], now: number, leaseMs: number) {
    if (!ids.length) return [];
    const lease = now + leaseMs;
    // Not fsynced (sync.ts): a claim lost on a power cut only means the delivery is sent again (at least once).
    const rows = unsynced(this.sqlite, () =>
      this.sqlite
        .transaction(() => {
          // RETURNING: the claimed row as it is now (leased), as on PostgreSQL. A row no longer pending
          // and due (sent by a manual retry meanwhile) is left alone.
          const claim = this.stmt(`UPDATE deliveries SET next_attempt_at = ?
            WHERE id = ? AND status = 'pending' AND next_attempt_at <= ? RETURNING ${DELIVERY_COLS}`);
          const out: DeliveryRow[] = [];
          for (const id of ids) {
            const row = claim.get(lease, id, now) as DeliveryRow | undefined;
            if (row) out.push(row);
          }
          return out;
        })
        .immediate(),
    );
    // A join batch's events are claimable once committed, maybe before its fsync (wal-sync.ts): nothing
    // is sent about an entry a power cut could still take back.
    if (rows.length) await this.walSync?.durable();
    return this.withContext(rows, lease);
  }

  async claimDue(now: number, limit: number, leaseMs: number) {
    return claimOldest(this, now, limit, leaseMs);
  }

  /** Every destination of a kind with pending deliveries, by their ids (releaseClaims, at start). */
  private pendingOf(kind: DestKind): string[] {
    const next = this.nextOf(kind);
    const out: string[] = [];
    for (let r = next.get('') as { id: string } | undefined; r; r = next.get(r.id) as { id: string } | undefined) out.push(r.id);
    return out;
  }

  async claimOne(webhookId: string, deliveryId: string, now: number, leaseMs: number) {
    const lease = now + leaseMs;
    const row = this.stmt(`UPDATE deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ? AND webhook_id = ?
         RETURNING ${DELIVERY_COLS}`).get(lease, now, deliveryId, webhookId) as DeliveryRow | undefined;
    return row ? (await this.withContext([row], lease))[0] : undefined;
  }

  private withContext(rows: DeliveryRow[], lease: number): ClaimedDelivery[] {
    if (!rows.length) return [];
    const eventIds = [...new Set(rows.map((r) => r.eventId).filter((x): x is string => !!x))];
    const hookIds = [...new Set(rows.map((r) => r.webhookId).filter((x): x is string => !!x))];
    const payloads = new Map(
      eventIds.length
        ? this.db
            .select({ id: s.events.id, payload: s.events.payload })
            .from(s.events)
            .where(inArray(s.events.id, eventIds))
            .all()
            .map((e) => [e.id, e.payload])
        : [],
    );
    const hooks = new Map(
      hookIds.length
        ? this.db
            .select()
            .from(s.webhooks)
            .where(inArray(s.webhooks.id, hookIds))
            .all()
            .map((h) => [h.id, h])
        : [],
    );
    return withClaimContext(rows, lease, payloads, hooks);
  }

  async finish(id: string, lease: number, o: DeliveryOutcome, now: number) {
    // Not fsynced (sync.ts): an outcome lost on a power cut leaves the delivery pending, sent again.
    // A sent email's variables (address, name, links with tokens) are dropped with secure_delete on, so
    // their freed cell is overwritten, not left in the page for an erased subscriber's data to linger.
    const run = () =>
      unsynced(this.sqlite, () =>
        this.stmt(`UPDATE deliveries SET status = ?, attempts = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?,
             data = CASE WHEN ? THEN NULL ELSE data END, updated_at = ?
           WHERE id = ? AND status = 'pending' AND next_attempt_at = ?`).run(
          o.status,
          o.attempts,
          o.lastStatusCode,
          o.lastError,
          o.nextAttemptAt,
          o.clearData ? 1 : 0,
          now,
          id,
          lease,
        ),
      );
    const r = o.clearData ? this.secureDelete(run) : run();
    return r.changes === 1;
  }

  async signupsBetween(projectId: string, from: number, to: number, limit: number, ids: { from: string; to: string }) {
    // The id range bounds the scan of the (project_id, id) index. Imported rows have no status token;
    // pending ones are no sign-up yet.
    const where = `project_id = @projectId AND deleted_at IS NULL AND id >= @lo AND id < @hi
      AND status <> 'pending' AND status_token_hash IS NOT NULL
      AND coalesce(confirmed_at, created_at) >= @from AND coalesce(confirmed_at, created_at) < @to`;
    const args = { projectId, from, to, lo: ids.from, hi: ids.to };
    const n = (this.stmt(`SELECT count(*) AS n FROM entries WHERE ${where}`).get(args) as { n: number }).n;
    const rows = this.stmt(`SELECT email, name FROM entries WHERE ${where} ORDER BY coalesce(confirmed_at, created_at) LIMIT @limit`).all({
      ...args,
      limit,
    }) as { email: string; name: string | null }[];
    return { count: n, rows };
  }

  async releaseClaims(now: number, leaseMs: number) {
    let n = 0;
    for (const kind of ['hook', 'mail'] as const) {
      const k = KINDS[kind];
      const release = this.stmt(`UPDATE ${k.from} SET next_attempt_at = ?
        WHERE status = 'pending' AND ${k.which} AND ${k.col} = ? AND next_attempt_at > ? AND next_attempt_at <= ?`);
      for (const id of this.pendingOf(kind)) n += release.run(now, id, now, now + leaseMs).changes;
    }
    return n;
  }
  async dropPendingEmails() {
    return this.stmt(`DELETE FROM deliveries INDEXED BY deliveries_mail_due_idx
      WHERE webhook_id IS NULL AND kind = 'email' AND status = 'pending'`).run().changes;
  }

  async backlog(cap = 1_000_000) {
    // Each term reads one of the two due indexes (pending webhook rows, pending emails).
    const r = this.stmt(`SELECT (SELECT count(*) FROM (SELECT 1 FROM events WHERE fanned_out = 0 LIMIT ?))
              + (SELECT count(*) FROM (SELECT 1 FROM deliveries WHERE status = 'pending' AND webhook_id IS NOT NULL LIMIT ?))
              + (SELECT count(*) FROM (SELECT 1 FROM deliveries INDEXED BY deliveries_mail_due_idx
                   WHERE status = 'pending' AND webhook_id IS NULL LIMIT ?)) AS n`).get(cap, cap, cap) as { n: number };
    return Math.min(cap, r.n);
  }

  async prune(before: number) {
    this.secureDelete(() => this.pruneNow(before));
  }

  private pruneNow(before: number) {
    this.stmt(`DELETE FROM deliveries WHERE status <> 'pending' AND updated_at < ?`).run(before);
    // By id, not created_at: an event's id starts with its creation time (idFloor), and the primary
    // key is the only index a join's event has to write besides the fan-out's.
    this.stmt(`DELETE FROM events WHERE fanned_out = 1 AND id < ?
           AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id AND d.status = 'pending')`).run(eventIdFloor(before));
  }
}
