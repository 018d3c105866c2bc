// Bodies of the webhook commands, loaded only when one runs.
import {
  createWebhookBody,
  type Delivery,
  rotateWebhookSecretBody,
  type Webhook,
  type WebhookCreated,
  type WebhookRotated,
} from '../../contract/events.js';
import { shortTime, type Column } from '../output.js';
import { allPages, type CliContext, confirmDelete, output, sessionClient, validate, type JsonOpt } from '../context.js';
import { CliError, EXIT } from '../errors.js';

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
/** `webhook rotate-secret`: create's columns, then until when the replaced secret still signs (empty: no longer). */
const rotatedColumns: Column<WebhookRotated>[] = [
  ...(createdColumns as Column<WebhookRotated>[]),
  {
    header: 'OLD SECRET UNTIL',
    value: (w) => w.previousSecretExpiresAt,
    pretty: (w) => shortTime(w.previousSecretExpiresAt) || 'dropped',
  },
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

/** An absolute http(s) URL, checked here so a bad --url is a usage error naming the flag (the server checks again). */
function webhookUrlProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return `must be an absolute http(s) URL such as https://example.com/hooks/waitlist, not '${raw}'`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `must use http or https, not '${u.protocol.slice(0, -1)}' ('${raw}')`;
  return undefined;
}

export async function listWebhooks(ctx: CliContext, opts: ProjectOpt) {
  const client = await sessionClient(ctx);
  const items = await allPages((page) => client.listWebhooks(opts.project, { page, limit: 100 }));
  output(ctx, opts).list(
    items,
    webhookColumns,
    `No webhooks yet: create one with \`waitlist webhook create --project ${opts.project} --url https://…\``,
  );
}

export async function createWebhook(ctx: CliContext, opts: ProjectOpt & { url: string; events?: string }) {
  const urlProblem = webhookUrlProblem(opts.url);
  if (urlProblem) throw new CliError(`--url ${urlProblem}`, EXIT.usage);
  const events = opts.events
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const body = validate(createWebhookBody, { url: opts.url, ...(events ? { events } : {}) }, { url: '--url', events: '--events' });
  const client = await sessionClient(ctx);
  const w = await client.createWebhook(opts.project, body);
  const out = output(ctx, opts);
  if (out.mode === 'json') return out.json(w);
  out.list([w], createdColumns);
  if (out.mode === 'table') {
    out.warn(`This is the only time the signing secret is shown: ${out.errColor.bold(w.secret)}`);
    out.info('Verify each delivery with it (Standard Webhooks; see docs/events.md).');
  }
}

export async function rotateSecret(ctx: CliContext, webhookId: string, opts: ProjectOpt & { keepPrevious?: number }) {
  const body = validate(rotateWebhookSecretBody, opts.keepPrevious === undefined ? {} : { keepPreviousFor: opts.keepPrevious }, {
    keepPreviousFor: '--keep-previous',
  });
  const client = await sessionClient(ctx);
  const w = await client.rotateWebhookSecret(opts.project, webhookId, body);
  const out = output(ctx, opts);
  if (out.mode === 'json') return out.json(w);
  out.list([w], rotatedColumns);
  if (out.mode === 'table') {
    out.warn(`This is the only time the new signing secret is shown: ${out.errColor.bold(w.secret)}`);
    out.info(
      w.previousSecretExpiresAt
        ? `Until ${w.previousSecretExpiresAt} every delivery is signed with both the old and the new secret: deploy the new one to your receiver before then.`
        : 'The old secret no longer signs: deliveries carry only the new signature from now on.',
    );
  }
}

export async function deleteWebhook(ctx: CliContext, webhookId: string, opts: ProjectOpt & { yes?: boolean }) {
  const client = await sessionClient(ctx);
  await confirmDelete(ctx, `webhook ${webhookId} of project ${opts.project} and its delivery log`, opts.yes);
  const w = await client.deleteWebhook(opts.project, webhookId);
  const out = output(ctx, opts);
  out.success(`Deleted webhook ${w.webhookId} (${w.url})`);
  if (out.mode === 'json') out.json(w);
}

export async function listDeliveries(ctx: CliContext, webhookId: string, opts: ProjectOpt & { limit: number }) {
  const client = await sessionClient(ctx);
  const page = await client.listDeliveries(opts.project, webhookId, { page: 1, limit: opts.limit });
  output(ctx, opts).list(page.items, deliveryColumns, 'No deliveries yet');
}

export async function retryDelivery(ctx: CliContext, webhookId: string, deliveryId: string, opts: ProjectOpt) {
  const client = await sessionClient(ctx);
  report(ctx, await client.retryDelivery(opts.project, webhookId, deliveryId), opts);
}

export async function testWebhook(ctx: CliContext, webhookId: string, opts: ProjectOpt) {
  const client = await sessionClient(ctx);
  report(ctx, await client.testWebhook(opts.project, webhookId), opts);
}

/**
 * The delivery is printed on stdout in every mode (a script reads its status and error); one that was
 * not delivered then ends the command with exit 1 and the reason on stderr.
 */
function report(ctx: CliContext, d: Delivery, opts: ProjectOpt) {
  const out = output(ctx, opts);
  if (d.status === 'delivered' && out.mode !== 'json') out.success(`Delivered ${d.type} (${d.deliveryId}): HTTP ${d.lastStatusCode}`);
  out.item(d);
  if (d.status !== 'delivered') {
    const next = d.status === 'pending' && d.nextAttemptAt ? `next attempt ${d.nextAttemptAt}` : 'given up';
    throw new CliError(`${d.type} ${d.deliveryId} was not delivered (${d.lastError ?? 'no answer'}); ${next}`, EXIT.error);
  }
}
