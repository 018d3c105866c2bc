// Webhooks of a project (management API): create (secret shown once), list, get, update, delete, the
// delivery log, manual retry and a test ping. Sending is the dispatcher's (src/core/dispatcher.ts).
import {
  EVENT_TYPES,
  WEBHOOK_LIMITS,
  type Attempts,
  type CreateWebhookBody,
  type Delivery,
  type EmailLogItem,
  type UpdateWebhookBody,
  type Webhook,
} from '../contract/events.js';
import type { DeliveryRow, WebhookPatch, WebhookRow } from '../db/outbox.js';
import type { PageArgs, Store } from '../db/store.js';
import type { Dispatcher } from './dispatcher.js';
import { AppError, invalidField, notFound } from './errors.js';
import { newEvent, outboxId } from './outbox.js';
import { webhookUrlProblem } from './ssrf.js';
import { newWebhookSecret } from './webhook-send.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export const toWebhook = (w: WebhookRow): Webhook => ({
  webhookId: w.id,
  url: w.url,
  events: JSON.parse(w.events) as Webhook['events'],
  enabled: w.enabled,
  createdAt: iso(w.createdAt),
  updatedAt: iso(w.updatedAt),
});

/** The attempt fields of a delivery row, shared by the webhook delivery log and the email log. */
const toAttempts = (d: DeliveryRow): Attempts => ({
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  nextAttemptAt: d.status === 'pending' ? isoOrNull(d.nextAttemptAt) : null,
  createdAt: iso(d.createdAt),
  updatedAt: iso(d.updatedAt),
});

export const toDelivery = (d: DeliveryRow): Delivery => ({ deliveryId: d.id, eventId: d.eventId ?? '', type: d.type, ...toAttempts(d) });

export const toEmailLog = (d: DeliveryRow): EmailLogItem => ({ emailId: d.id, template: d.type, to: d.recipient ?? '', ...toAttempts(d) });

async function checkUrl(url: string, allowPrivate: boolean) {
  const problem = await webhookUrlProblem(url, allowPrivate);
  if (problem) throw invalidField('url', problem);
}

/** Creates a webhook; the row (with its secret) is returned once. */
export async function createWebhook(store: Store, projectId: string, body: CreateWebhookBody, allowPrivate: boolean) {
  await checkUrl(body.url, allowPrivate);
  const { total } = await store.events.listWebhooks(projectId, { offset: 0, limit: 1 });
  if (total >= WEBHOOK_LIMITS.perProject) throw invalidField('url', `A project has at most ${WEBHOOK_LIMITS.perProject} webhooks`);
  const now = Date.now();
  const row: WebhookRow = {
    id: outboxId('wh'),
    projectId,
    url: body.url,
    events: JSON.stringify(body.events ?? EVENT_TYPES),
    secret: newWebhookSecret(),
    enabled: true,
    createdAt: now,
    updatedAt: now,
    previousSecret: null,
    previousSecretExpiresAt: null,
  };
  await store.events.insertWebhook(row);
  return row;
}

export const listWebhooks = (store: Store, projectId: string, page: PageArgs) => store.events.listWebhooks(projectId, page);

export async function getWebhook(store: Store, projectId: string, webhookId: string) {
  const w = await store.events.webhookInProject(projectId, webhookId);
  if (!w) throw notFound('Webhook');
  return w;
}

export async function updateWebhook(store: Store, projectId: string, webhookId: string, body: UpdateWebhookBody, allowPrivate: boolean) {
  await getWebhook(store, projectId, webhookId);
  if (body.url === undefined && body.events === undefined && body.enabled === undefined) {
    throw invalidField('url', 'Give at least one of url, events, enabled');
  }
  if (body.url !== undefined) await checkUrl(body.url, allowPrivate);
  const patch: WebhookPatch = {};
  if (body.url !== undefined) patch.url = body.url;
  if (body.events !== undefined) patch.events = JSON.stringify(body.events);
  if (body.enabled !== undefined) patch.enabled = body.enabled;
  const w = await store.events.updateWebhook(projectId, webhookId, patch, Date.now());
  if (!w) throw notFound('Webhook');
  return w;
}

/**
 * Gives the webhook a new secret (answered once). The secret it replaces keeps signing beside the new
 * one for `keepPreviousSec` seconds (every delivery carries both signatures, as the Standard Webhooks
 * specification allows), so a receiver switches without missing one; 0 drops it at once.
 */
export async function rotateWebhookSecret(store: Store, projectId: string, webhookId: string, keepPreviousSec: number) {
  const w = await getWebhook(store, projectId, webhookId);
  const now = Date.now();
  const patch: WebhookPatch = {
    secret: newWebhookSecret(),
    previousSecret: keepPreviousSec > 0 ? w.secret : null,
    previousSecretExpiresAt: keepPreviousSec > 0 ? now + keepPreviousSec * 1000 : null,
  };
  const row = await store.events.updateWebhook(projectId, webhookId, patch, now);
  if (!row) throw notFound('Webhook');
  return row;
}

export async function deleteWebhook(store: Store, projectId: string, webhookId: string) {
  const w = await store.events.deleteWebhook(projectId, webhookId);
  if (!w) throw notFound('Webhook');
  return w;
}

export async function listDeliveries(store: Store, projectId: string, webhookId: string, page: PageArgs) {
  await getWebhook(store, projectId, webhookId);
  return store.events.listDeliveries(webhookId, page);
}

/** Sends one delivery again now (whatever its status) and answers the updated row. */
export async function retryDelivery(store: Store, dispatcher: Dispatcher, projectId: string, webhookId: string, deliveryId: string) {
  await getWebhook(store, projectId, webhookId);
  const claimed = await store.events.claimOne(webhookId, deliveryId, Date.now(), 60_000);
  if (!claimed) throw notFound('Delivery');
  await dispatcher.deliver(claimed);
  const d = await store.events.deliveryOfWebhook(webhookId, deliveryId);
  if (!d) throw notFound('Delivery');
  return d;
}

/** Sends a `ping` event to this webhook now (retried like any delivery if it fails) and answers its delivery. */
export async function testWebhook(store: Store, dispatcher: Dispatcher, projectId: string, webhookId: string) {
  const w = await getWebhook(store, projectId, webhookId);
  if (!w.enabled) throw new AppError('validation_failed', 'Validation failed', [{ path: 'enabled', message: 'The webhook is disabled' }]);
  const now = Date.now();
  const ev = newEvent('ping', projectId, { webhookId: w.id }, now);
  const id = outboxId('dlv');
  // Far-future nextAttemptAt: the dispatcher leaves it alone while this request sends it.
  // A ping is for this webhook only: its event is stored as already fanned out.
  await store.events.append(
    { events: [ev] },
    [
      {
        id,
        projectId,
        kind: 'webhook',
        webhookId: w.id,
        eventId: ev.id,
        type: 'ping',
        recipient: null,
        data: null,
        nextAttemptAt: now + 60_000,
        createdAt: now,
      },
    ],
    true,
  );
  return retryDelivery(store, dispatcher, projectId, webhookId, id);
}

/** The project's email log, newest first. */
export const listEmails = (store: Store, projectId: string, page: PageArgs) => store.events.listEmails(projectId, page);
