// Webhooks of a project: create (the signing secret is shown once), list, enable/disable, test ping,
// delete, and each webhook's delivery log with status and a retry button. Calls src/client.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Delivery, Webhook, WebhookCreated } from '../../../src/contract/events.js';
import type { Page, Project } from '../api.js';
import { eventsClient } from '../events-client.js';
import { attempt, ConfirmDialog, ErrorMsg, fmtDate, Loaded, Notice, Pager, ShownOnce, Table } from '../ui.js';

/** Deliveries per page of a webhook's log. */
export const DELIVERIES_PER_PAGE = 20;

export function WebhooksTab({ project }: { project: Project }) {
  const pid = project.projectId;
  const client = eventsClient();
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [url, setUrl] = useState('');
  const [created, setCreated] = useState<WebhookCreated | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  // Bumped after a test ping so an open delivery log reloads and shows it.
  const [pinged, setPinged] = useState(0);

  const load = () => client.listWebhooks(pid, { limit: 100 }).then((p) => setHooks(p.items), setError);
  useEffect(() => void load(), [pid]);

  const act = (fn: () => Promise<unknown>) => attempt(setError, fn);
  const create = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const w = await client.createWebhook(pid, { url: url.trim() });
      setCreated(w);
      setUrl('');
      await load();
    });
  };
  const toggle = (w: Webhook) =>
    act(async () => {
      await client.updateWebhook(pid, w.webhookId, { enabled: !w.enabled });
      setNotice(`Webhook ${w.enabled ? 'disabled' : 'enabled'}.`);
      await load();
    });
  const test = (w: Webhook) =>
    act(async () => {
      const d = await client.testWebhook(pid, w.webhookId);
      setNotice(
        d.status === 'delivered' ? `Ping delivered (HTTP ${d.lastStatusCode}).` : `Ping not delivered: ${d.lastError ?? 'no answer'}.`,
      );
      setOpen(w.webhookId);
      setPinged((n) => n + 1);
    });

  return (
    <section aria-labelledby="hooks-title">
      <h2 id="hooks-title">Webhooks</h2>
      <p class="muted">
        Each event (entry.created, entry.deleted, …) is POSTed to your URLs, signed per Standard Webhooks, and retried for about 27 hours
        until your endpoint answers 2xx.
      </p>
      {created ? (
        <ShownOnce
          id="new-hook-title"
          title="Webhook created"
          label="Signing secret"
          value={created.secret}
          onDone={() => setCreated(null)}
        >
          <strong>Copy the signing secret now: this is the only time it is shown.</strong> Use it to verify the{' '}
          <code>webhook-signature</code> header.
        </ShownOnce>
      ) : null}
      <form class="row wrap card" onSubmit={create}>
        <div class="field grow">
          <label for="hook-url">Endpoint URL</label>
          <input
            id="hook-url"
            type="url"
            required
            maxLength={2000}
            placeholder="https://example.com/hooks/waitlist"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </div>
        <button type="submit" class="primary">
          Add webhook
        </button>
      </form>
      <ErrorMsg error={error} />
      <Notice text={notice} />
      <Loaded items={hooks} empty="No webhooks yet.">
        {(list) =>
          list.map((w) => (
            <div class="card" key={w.webhookId}>
              <p>
                <code>{w.url}</code> {w.enabled ? null : <span class="muted">(disabled)</span>}
              </p>
              <p class="muted">
                {w.events.join(', ')} · created {fmtDate(w.createdAt)}
              </p>
              <div class="row wrap">
                <button
                  type="button"
                  class="small"
                  onClick={() => setOpen(open === w.webhookId ? null : w.webhookId)}
                  aria-expanded={open === w.webhookId}
                >
                  Deliveries
                </button>
                <button type="button" class="small" onClick={() => void test(w)} disabled={!w.enabled}>
                  Send test ping
                </button>
                <button type="button" class="small" onClick={() => void toggle(w)}>
                  {w.enabled ? 'Disable' : 'Enable'}
                </button>
                <button type="button" class="small danger" onClick={() => setDeleting(w)} aria-label={`Delete webhook ${w.url}`}>
                  Delete
                </button>
              </div>
              {open === w.webhookId ? <Deliveries pid={pid} hook={w} version={pinged} onError={setError} /> : null}
            </div>
          ))
        }
      </Loaded>
      {deleting ? (
        <ConfirmDialog
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await client.deleteWebhook(pid, deleting.webhookId);
            setNotice('Webhook deleted.');
            await load();
          }}
        >
          <p>
            <code>{deleting.url}</code> stops receiving events at once, and its delivery log is deleted.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function Deliveries({ pid, hook, version, onError }: { pid: string; hook: Webhook; version: number; onError: (e: unknown) => void }) {
  const client = eventsClient();
  const [data, setData] = useState<Page<Delivery> | null>(null);
  const [page, setPage] = useState(1);
  const items = data && data.items;
  const seq = useRef(0);
  const load = (p = page) => {
    const mine = ++seq.current; // an answer to an older request (another page) is dropped
    return client
      .listDeliveries(pid, hook.webhookId, { page: p, limit: DELIVERIES_PER_PAGE })
      .then((d) => void (mine === seq.current && setData(d)), onError);
  };
  // A ping (a new version) shows the first page, where the newest delivery is.
  useEffect(() => setPage(1), [version]);
  useEffect(() => void load(page), [hook.webhookId, version, page]);
  const retry = async (d: Delivery) => {
    try {
      await client.retryDelivery(pid, hook.webhookId, d.deliveryId);
      await load();
    } catch (err) {
      onError(err);
    }
  };
  return (
    <div class="deliveries">
      <Loaded items={items} empty="No deliveries yet.">
        {(rows) => (
          <Table
            caption={`Deliveries of ${hook.url}`}
            rows={rows}
            rowKey={(d) => d.deliveryId}
            rowAttrs={(d) => ({ 'data-status': d.status })}
            columns={[
              {
                label: 'Event',
                cell: (d) => (
                  <>
                    {d.type} <code class="muted">{d.eventId}</code>
                  </>
                ),
              },
              { label: 'Status', cell: (d) => d.status },
              { label: 'Attempts', cell: (d) => d.attempts },
              { label: 'Last answer', cell: (d) => d.lastError ?? (d.lastStatusCode === null ? '' : `HTTP ${d.lastStatusCode}`) },
              { label: 'Next attempt', cell: (d) => (d.nextAttemptAt ? fmtDate(d.nextAttemptAt) : '') },
              { label: 'Created', cell: (d) => fmtDate(d.createdAt) },
            ]}
            actions={(d) => (
              <button type="button" class="small" onClick={() => void retry(d)} aria-label={`Retry delivery ${d.deliveryId}`}>
                Retry
              </button>
            )}
          />
        )}
      </Loaded>
      {data ? (
        <Pager label={`Delivery pages of ${hook.url}`} page={page} totalPages={data.totalPages} total={data.total} onPage={setPage}>
          {data.total} deliveries · page {data.page} of {data.totalPages}
        </Pager>
      ) : null}
    </div>
  );
}
