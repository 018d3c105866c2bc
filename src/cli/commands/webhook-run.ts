// Bodies of the webhook commands, loaded only when one runs.
import { createWebhookBody, type Delivery, type Webhook, type WebhookCreated } from '../../contract/events.js';
import { shortTime, type Column } from '../output.js';
import { allPages, confirmDelete, output, sessionClient, validate, type JsonOpt } from '../context.js';

interface ProjectOpt extends JsonOpt {
  project: string;
}

const webhookColumns: Column<Webhook>[] = [
  { header: 'WEBHOOK ID', value: (w) => w.webhookId },
  { header: 'URL', value: (w) => w.url },
  { header: 'EVENTS', value: (w) => w.events.join(',') },
  { header: 'ENABLED', value: (w) => String(w.enabled) },
  { header: 'CREATED', value: (w) => w.createdAt, pretty: (w) => shortTime(w.createdAt) },
];
const createdColumns: Column<WebhookCreated>[] = [
  ...(webhookColumns as Column<WebhookCreated>[]).slice(0, 2),
  { header: 'SECRET', value: (w) => w.secret },
];
const deliveryColumns: Column<Delivery>[] = [
  { header: 'DELIVERY ID', value: (d) => d.deliveryId },
  { header: 'TYPE', value: (d) => d.type },
  { header: 'STATUS', value: (d) => d.status },
  { header: 'ATTEMPTS', value: (d) => String(d.attempts) },
  { header: 'LAST', value: (d) => (d.lastStatusCode === null ? '' : String(d.lastStatusCode)) },
  { header: 'ERROR', value: (d) => d.lastError },
  { header: 'NEXT ATTEMPT', value: (d) => d.nextAttemptAt, pretty: (d) => shortTime(d.nextAttemptAt) },
  { header: 'CREATED', value: (d) => d.createdAt, pretty: (d) => shortTime(d.createdAt) },
];

export async function listWebhooks(opts: ProjectOpt) {
  const client = await sessionClient();
  const items = await allPages((page) => client.listWebhooks(opts.project, { page, limit: 100 }));
  output(opts).list(
    items,
    webhookColumns,
    `No webhooks yet: create one with \`waitlist webhook create --project ${opts.project} --url https://…\``,
  );
}

export async function createWebhook(opts: ProjectOpt & { url: string; events?: string }) {
  const events = opts.events
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const body = validate(createWebhookBody, { url: opts.url, ...(events ? { events } : {}) }, { url: '--url', events: '--events' });
  const client = await sessionClient();
  const w = await client.createWebhook(opts.project, body);
  const out = output(opts);
  if (out.mode === 'json') return out.json(w);
  out.list([w], createdColumns);
  if (out.mode === 'table') {
    out.warn(`This is the only time the signing secret is shown: ${out.errColor.bold(w.secret)}`);
    out.info('Verify each delivery with it (Standard Webhooks; see docs/events.md).');
  }
}

export async function deleteWebhook(webhookId: string, opts: ProjectOpt & { yes?: boolean }) {
  const client = await sessionClient();
  await confirmDelete(`webhook ${webhookId} of project ${opts.project} and its delivery log`, opts.yes);
  const w = await client.deleteWebhook(opts.project, webhookId);
  const out = output(opts);
  out.success(`Deleted webhook ${w.webhookId} (${w.url})`);
  if (out.mode === 'json') out.json(w);
}

export async function listDeliveries(webhookId: string, opts: ProjectOpt & { limit: number }) {
  const client = await sessionClient();
  const page = await client.listDeliveries(opts.project, webhookId, { page: 1, limit: opts.limit });
  output(opts).list(page.items, deliveryColumns, 'No deliveries yet');
}

export async function retryDelivery(webhookId: string, deliveryId: string, opts: ProjectOpt) {
  const client = await sessionClient();
  const d = await client.retryDelivery(opts.project, webhookId, deliveryId);
  report(d, opts);
}

export async function testWebhook(webhookId: string, opts: ProjectOpt) {
  const client = await sessionClient();
  report(await client.testWebhook(opts.project, webhookId), opts);
}

function report(d: Delivery, opts: ProjectOpt) {
  const out = output(opts);
  if (out.mode === 'json') return out.json(d);
  if (d.status === 'delivered') out.success(`Delivered ${d.type} (${d.deliveryId}): HTTP ${d.lastStatusCode}`);
  else {
    out.warn(`Not delivered (${d.lastError ?? 'no answer'}); ${d.status === 'pending' ? `next attempt ${d.nextAttemptAt}` : 'given up'}`);
    process.exitCode = 1;
  }
  out.item(d);
}
