// The events layer's side of the Store: the transactional outbox, webhooks, deliveries and email
// templates. Types only; each dialect implements them (src/db/sqlite/outbox.ts, src/db/pg/outbox.ts).
//
// HOW ANOTHER LAYER EMITS AN EVENT OR QUEUES AN EMAIL (inside its own transaction)
//
// 1. Build the rows in core (no SQL there):
//      import { newEvent, newEmail } from '../core/outbox.js';
//      const ev = newEvent('entry.confirmed', projectId, toEntry(row));          // OutboxEvent
//      const mail = newEmail(projectId, 'confirmation', 'a@b.c', { confirmUrl, leaveUrl }); // OutboxEmail
//    `newEvent` builds the payload `{type, timestamp, projectId, data}` once; its id (`evt_…`) is the
//    `webhook-id` receivers dedupe on. An entry change's event is made with
//    `entryEvent(type, projectId, entryData(row), now, feedsNotices)` instead: it is written only
//    when, in the writing transaction, an enabled webhook of the project subscribes to its type (or
//    `feedsNotices`), and its payload is built only then (`ifSubscribed`, docs/events.md).
//    Email `data` holds what the template needs (links may carry tokens: the row keeps them only
//    until the email is sent, then `data` is cleared).
// 2. Hand them to the store method that makes the change, and write them in ITS transaction:
//    - SQLite (synchronous better-sqlite3 transaction):
//        import { writeOutbox } from './outbox.js';
//        this.sqlite.transaction(() => { …your statements…; writeOutbox(this.sqlite, { events: [ev], emails: [mail] }); })();
//    - PostgreSQL (drizzle transaction, or the same `tx` you already have):
//        import { writeOutboxPg } from './outbox.js';
//        await this.db.transaction(async (tx) => { …; await writeOutboxPg(tx, { events: [ev], emails: [mail] }); });
//    Then call `this.outboxWritten()` after the commit so the dispatcher wakes at once (it also polls).
// 3. Joins: `store.insertEntry(row, keyId, (inserted) => writes)` writes `writes` in the group commit,
//    built from the row as inserted (its referrer resolved), only when the row was inserted (not for a
//    duplicate). Deletes: `store.softDeleteEntry(…, now, (row) => writes)`.
//
// Nothing is sent inside a transaction: the dispatcher (src/core/dispatcher.ts) delivers after commit.
import type { Counted, PageArgs, ProjectRow } from './store.js';
import { encodeTime } from 'ulidx';

/**
 * The smallest event id made at `at` or later: `evt_` ids are ULIDs (src/core/outbox.ts), whose first
 * ten characters are the creation time, so the 30-day prune finds old events on the primary key.
 */
export const eventIdFloor = (at: number): string => `evt_${encodeTime(Math.max(0, Math.floor(at)), 10)}`;

/**
 * An event to append to the outbox. `payload` is the exact JSON body that is signed and sent.
 * `ifSubscribed`: written only if, in the writing transaction, an enabled webhook of the project
 * subscribes to `type` (else nothing would ever read it: the fan-out would drop it); unset, always
 * written (a `ping`, or an event that may become a sign-up notice). Only webhooks read such an event,
 * so the SQLite store fans it out in the writing transaction, one delivery per subscribed webhook, with
 * ids from `deliveryId` (`dlv_…`), instead of leaving it to the dispatcher's fan-out (docs/events.md).
 */
export type OutboxEvent = {
  id: string;
  projectId: string;
  type: string;
  payload: string;
  createdAt: number;
} & ({ ifSubscribed?: undefined } | { ifSubscribed: true; deliveryId: () => string });

/** An email to send: template name (confirmation, welcome, invite, notice, digest), recipient, variables. */
export interface OutboxEmail {
  id: string;
  projectId: string;
  template: string;
  recipient: string;
  /** JSON object of template variables. */
  data: string;
  createdAt: number;
}

/** What a transaction appends to the outbox. */
export interface OutboxWrites {
  events?: OutboxEvent[];
  emails?: OutboxEmail[];
}

export interface WebhookRow {
  id: string;
  projectId: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  secret: string;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
  /** The secret the last rotation replaced: it signs too until previousSecretExpiresAt. */
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
}

export type WebhookPatch = Partial<
  Pick<WebhookRow, 'url' | 'events' | 'enabled' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>
>;

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  projectId: string;
  kind: 'webhook' | 'email';
  webhookId: string | null;
  eventId: string | null;
  type: string;
  recipient: string | null;
  data: string | null;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export type NewDelivery = Pick<
  DeliveryRow,
  'id' | 'projectId' | 'kind' | 'webhookId' | 'eventId' | 'type' | 'recipient' | 'data' | 'nextAttemptAt' | 'createdAt'
>;

export interface EventRow {
  id: string;
  projectId: string;
  type: string;
  payload: string;
  createdAt: number;
}

/** A delivery claimed by one dispatcher until `lease` (its fencing token), with what sending needs. */
export interface ClaimedDelivery extends DeliveryRow {
  lease: number;
  payload: string | null;
  webhook: Pick<WebhookRow, 'url' | 'secret' | 'enabled' | 'previousSecret' | 'previousSecretExpiresAt'> | null;
}

/**
 * Where a delivery goes, for sharing the send slots: each webhook is one destination, and each project's
 * email is one (a webhook's row has its id; an email's has none).
 */
export const destinationOf = (d: { webhookId: string | null; projectId: string }): string =>
  d.webhookId === null ? `em:${d.projectId}` : `wh:${d.webhookId}`;

/** A due delivery as a claim first sees it: enough to choose which to take (core/fair-share.ts). */
export interface DueRow {
  id: string;
  projectId: string;
  webhookId: string | null;
  nextAttemptAt: number;
}

/**
 * Where the walk over destinations with pending deliveries goes on from: the last webhook id and the
 * last project id (emails) looked at (empty: from the start).
 */
export interface DueCursor {
  hook: string;
  mail: string;
}

export const DUE_START: DueCursor = { hook: '', mail: '' };

/** A destination: a webhook (`webhookId`), or a project's email (`webhookId` null). */
export type Destination = Pick<DueRow, 'webhookId' | 'projectId'>;

/** Rows of `more` not already in `rows`, appended to it (a hot destination the walk also looked at). */
export function addNew(rows: DueRow[], more: readonly DueRow[]): void {
  if (!more.length) return;
  const seen = new Set(rows.map((r) => r.id));
  for (const r of more) if (!seen.has(r.id)) rows.push(r);
}

/** claimDue from the two steps a dispatcher takes: every destination's due deliveries, the oldest first. */
export async function claimOldest(store: Pick<EventStore, 'dueCandidates' | 'claimPicked'>, now: number, limit: number, leaseMs: number) {
  const { rows } = await store.dueCandidates(now, DUE_START, Number.MAX_SAFE_INTEGER, limit);
  rows.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return store.claimPicked(
    rows.slice(0, limit).map((r) => r.id),
    now,
    leaseMs,
  );
}

export interface DeliveryOutcome {
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  /** Clear the email variables (sent, or given up). */
  clearData: boolean;
}

export interface TemplateRow {
  projectId: string;
  name: string;
  subject: string | null;
  text: string | null;
  html: string | null;
  updatedAt: number;
}

/** A change to one template: the parts given (null: back to the default); a part left out is kept. */
export type TemplatePatch = Pick<TemplateRow, 'projectId' | 'name' | 'updatedAt'> & Partial<Pick<TemplateRow, 'subject' | 'text' | 'html'>>;

/** The parts a patch gives, as columns to set (the ones left out are not touched). */
export function givenParts(
  p: Partial<Pick<TemplateRow, 'subject' | 'text' | 'html'>>,
): Partial<Pick<TemplateRow, 'subject' | 'text' | 'html'>> {
  const out: Partial<Pick<TemplateRow, 'subject' | 'text' | 'html'>> = {};
  for (const part of ['subject', 'text', 'html'] as const) if (p[part] !== undefined) out[part] = p[part];
  return out;
}

/** Turns each event into its deliveries (webhooks subscribed to it, notice emails…). Runs inside the fan-out transaction. */
export type FanOutPlan = (event: EventRow, webhooks: WebhookRow[], project: ProjectRow | undefined) => NewDelivery[];

export interface EventStore {
  // webhooks
  insertWebhook(row: WebhookRow): Promise<void>;
  listWebhooks(projectId: string, page: PageArgs): Promise<Counted<WebhookRow>>;
  webhookInProject(projectId: string, webhookId: string): Promise<WebhookRow | undefined>;
  /** Updates a webhook; disabling it (`enabled: false`) fails its pending deliveries in the same transaction. */
  updateWebhook(projectId: string, webhookId: string, patch: WebhookPatch, now: number): Promise<WebhookRow | undefined>;
  /** Deletes the webhook and its delivery log. */
  deleteWebhook(projectId: string, webhookId: string): Promise<WebhookRow | undefined>;

  // delivery log
  listDeliveries(webhookId: string, page: PageArgs): Promise<Counted<DeliveryRow>>;
  deliveryOfWebhook(webhookId: string, deliveryId: string): Promise<DeliveryRow | undefined>;
  listEmails(projectId: string, page: PageArgs): Promise<Counted<DeliveryRow>>;

  // templates
  templates(projectId: string): Promise<TemplateRow[]>;
  /** Sets the parts each patch gives, in one statement per template: concurrent patches of other parts are kept. */
  putTemplates(patches: TemplatePatch[]): Promise<void>;
  deleteTemplates(projectId: string, names: string[]): Promise<void>;

  // dispatcher
  /** Appends outbox rows in a transaction of their own; `fanned`: the events need no fan-out (test pings). */
  append(writes: OutboxWrites, deliveries?: NewDelivery[], fanned?: boolean): Promise<void>;
  /** Claims up to `limit` events not yet fanned out, turns them into deliveries with `plan`, marks them. */
  fanOut(limit: number, plan: FanOutPlan): Promise<number>;
  /**
   * The oldest due deliveries (up to `perDestination` each) of up to `destinations` webhooks and up to
   * `destinations` projects' emails that have pending deliveries, walking on from `cursor` in id order
   * and wrapping around: a claim costs the same however many destinations wait. Returns where to go on
   * from next time, and whether each walk came to the end of the destinations on the way (`wrapped`).
   * The `hot` destinations (those that had due work at the last claims) are read as well, wherever the
   * walks are. Reads only: nothing is claimed.
   */
  dueCandidates(
    now: number,
    cursor: DueCursor,
    destinations: number,
    perDestination: number,
    hot?: readonly Destination[],
  ): Promise<{ rows: DueRow[]; cursor: DueCursor; wrapped: { hook: boolean; mail: boolean } }>;
  /**
   * Claims these deliveries until `now + leaseMs`: those still pending and due (another dispatcher may
   * have claimed some since they were read).
   */
  claimPicked(ids: string[], now: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Claims up to `limit` due pending deliveries until `now + leaseMs`, the oldest due first (tests, tools). */
  claimDue(now: number, limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Claims one delivery of a webhook now, whatever its status (manual retry). */
  claimOne(webhookId: string, deliveryId: string, now: number, leaseMs: number): Promise<ClaimedDelivery | undefined>;
  /** Records an attempt's outcome if the claim still holds; false when another dispatcher took it over. */
  finish(id: string, lease: number, outcome: DeliveryOutcome, now: number): Promise<boolean>;
  /**
   * The hourly digest's sign-ups: live entries of a project that became sign-ups in [from, to) (joined
   * then, or confirmed then after a double opt-in; never pending, never imported), their number and the
   * first `limit`. `ids`: the range of entry ids to look through (ids sort by their join time: from the
   * earliest a confirmed entry may have joined, its pending time before `from`, to the hour's end).
   */
  signupsBetween(
    projectId: string,
    from: number,
    to: number,
    limit: number,
    ids: { from: string; to: string },
  ): Promise<{ count: number; rows: { email: string; name: string | null }[] }>;
  /** Removes pending email rows (no SMTP: nothing piles up); returns how many. */
  dropPendingEmails(): Promise<number>;
  /**
   * At start, on a database only this process uses (SQLite: one server per file): the claims a process
   * that stopped mid-send left are released, so their deliveries are sent now instead of when the lease
   * runs out (so are retries due within the lease: a little early). PostgreSQL: nothing (another instance
   * may hold them). Returns how many deliveries were made due.
   */
  releaseClaims(now: number, leaseMs: number): Promise<number>;
  /** Undelivered work: events not fanned out + pending deliveries, counted up to `cap`. */
  backlog(cap?: number): Promise<number>;
  /** Deletes finished deliveries and fanned-out events older than `before`. */
  prune(before: number): Promise<void>;
}

/**
 * A fan-out run's plan, the same on both dialects: the deliveries of each event (its project's enabled
 * webhooks and settings decide), and which events to keep (a webhook will read their payload) or drop.
 */
export function planFanOut(
  events: EventRow[],
  hooks: WebhookRow[],
  projects: ProjectRow[],
  plan: FanOutPlan,
): { deliveries: NewDelivery[]; keep: string[]; drop: string[] } {
  const deliveries: NewDelivery[] = [];
  const keep: string[] = [];
  const drop: string[] = [];
  for (const e of events) {
    const ds = plan(
      e,
      hooks.filter((h) => h.projectId === e.projectId),
      projects.find((p) => p.id === e.projectId),
    );
    deliveries.push(...ds);
    // An event no webhook wants is not kept (nothing will ever read its payload).
    (ds.some((d) => d.kind === 'webhook') ? keep : drop).push(e.id);
  }
  return { deliveries, keep, drop };
}

/** Claimed delivery rows with their lease and what a send needs: the event's payload and the webhook. */
export function withClaimContext(
  rows: DeliveryRow[],
  lease: number,
  payloads: Map<string, string>,
  hooks: Map<string, WebhookRow>,
): ClaimedDelivery[] {
  return rows.map((r) => ({
    ...r,
    lease,
    payload: r.eventId ? (payloads.get(r.eventId) ?? null) : null,
    webhook: r.webhookId ? (hooks.get(r.webhookId) ?? null) : null,
  }));
}

/** The `lastError` of a delivery given up because its webhook was disabled. */
export const DISABLED = 'webhook is disabled';
