// Webhooks of a project: create (the signing secret is shown once), list, enable/disable, test ping,
// delete, and each webhook's delivery log with status and a retry button. Calls src/client.
import { useEffect, useState } from 'preact/hooks';
import type { Delivery, Webhook, WebhookCreated } from '../../../src/contract/events.js';
import type { Project } from '../api.js';
import { eventsClient } from '../events-client.js';
import { ConfirmDialog, CopyField, ErrorMsg, fmtDate, Notice } from '../ui.js';

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

  const load = () => client.listWebhooks(pid, { limit: 100 }).then((p) => setHooks(p.items), setError);
  useEffect(() => void load(), [pid]);

  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err);
    }
  };
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
    });

  return (
    <section aria-labelledby="hooks-title">
      <h2 id="hooks-title">Webhooks</h2>
      <p class="muted">
        Each event (entry.created, entry.deleted, …) is POSTed to your URLs, signed per Standard Webhooks, and retried for about 27 hours
        until your endpoint answers 2xx.
      </p>
      {created ? (
        <section class="card warn" aria-labelledby="new-hook-title">
          <h3 id="new-hook-title">Webhook created</h3>
          <p>
            <strong>Copy the signing secret now: this is the only time it is shown.</strong> Use it to verify the{' '}
            <code>webhook-signature</code> header.
          </p>
          <CopyField label="Signing secret" value={created.secret} />
          <button type="button" onClick={() => setCreated(null)}>
            I have saved it
          </button>
        </section>
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
      {hooks === null ? (
        <p>Loading…</p>
      ) : hooks.length === 0 ? (
        <p class="muted">No webhooks yet.</p>
      ) : (
        hooks.map((w) => (
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
            {open === w.webhookId ? <Deliveries pid={pid} hook={w} onError={setError} /> : null}
          </div>
        ))
      )}
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

function Deliveries({ pid, hook, onError }: { pid: string; hook: Webhook; onError: (e: unknown) => void }) {
  const client = eventsClient();
  const [items, setItems] = useState<Delivery[] | null>(null);
  const load = () => client.listDeliveries(pid, hook.webhookId, { limit: 50 }).then((p) => setItems(p.items), onError);
  useEffect(() => void load(), [hook.webhookId]);
  const retry = async (d: Delivery) => {
    try {
      await client.retryDelivery(pid, hook.webhookId, d.deliveryId);
      await load();
    } catch (err) {
      onError(err);
    }
  };
  if (items === null) return <p>Loading…</p>;
  if (!items.length) return <p class="muted">No deliveries yet.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">Deliveries of {hook.url}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Next attempt</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((d) => (
            <tr key={d.deliveryId} data-status={d.status}>
              <td data-label="Event">
                {d.type} <code class="muted">{d.eventId}</code>
              </td>
              <td data-label="Status">{d.status}</td>
              <td data-label="Attempts">{d.attempts}</td>
              <td data-label="Last answer">{d.lastError ?? (d.lastStatusCode === null ? '' : `HTTP ${d.lastStatusCode}`)}</td>
              <td data-label="Next attempt">{d.nextAttemptAt ? fmtDate(d.nextAttemptAt) : ''}</td>
              <td data-label="Created">{fmtDate(d.createdAt)}</td>
              <td>
                <button type="button" class="small" onClick={() => void retry(d)} aria-label={`Retry delivery ${d.deliveryId}`}>
                  Retry
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
