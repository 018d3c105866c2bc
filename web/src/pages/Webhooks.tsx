// Webhooks of a project: create with a choice of events (the signing secret is shown once), list, edit
// URL and events, enable/disable, test ping, rotate the secret (the new one shown once), delete, and each
// webhook's delivery log with status and a retry button. Calls src/client.
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type Delivery,
  EVENT_TYPES,
  type EventType,
  type UpdateWebhookBody,
  type Webhook,
  type WebhookCreated,
  type WebhookRotated,
} from '../../../src/contract/events.js';
import type { Page, Project } from '../api.js';
import { eventsClient, rotateWebhookSecret } from '../events-client.js';
import { attempt, ConfirmDialog, ErrorMsg, fmtDate, Loaded, Notice, Pager, ShownOnce, Table } from '../ui.js';

/** Deliveries per page of a webhook's log. */
export const DELIVERIES_PER_PAGE = 20;

/** How long a rotated-out secret keeps signing: the choices of the rotate dialog (seconds; the API's default is one day). */
export const KEEP_PREVIOUS_CHOICES = [
  { seconds: 86_400, label: '1 day (default)' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 604_800, label: '7 days' },
  { seconds: 0, label: 'Drop it now (the old secret may have leaked)' },
] as const;

const NO_EVENTS = 'Choose at least one event: a webhook with none would receive nothing.';
/** The events in the API's order, so an edit compares as a set. */
const ordered = (events: readonly EventType[]) => EVENT_TYPES.filter((t) => events.includes(t));

export function WebhooksTab({ project }: { project: Project }) {
  const pid = project.projectId;
  const client = eventsClient();
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>([...EVENT_TYPES]);
  const [created, setCreated] = useState<WebhookCreated | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [rotating, setRotating] = useState<Webhook | null>(null);
  const [keepFor, setKeepFor] = useState<number>(KEEP_PREVIOUS_CHOICES[0].seconds);
  const [rotated, setRotated] = useState<WebhookRotated | null>(null);
  // Bumped after a test ping so an open delivery log reloads and shows it.
  const [pinged, setPinged] = useState(0);

  const load = () => client.listWebhooks(pid, { limit: 100 }).then((p) => setHooks(p.items), setError);
  useEffect(() => void load(), [pid]);

  const act = (fn: () => Promise<unknown>) => attempt(setError, fn);
  const create = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      if (events.length === 0) throw new Error(NO_EVENTS);
      const w = await client.createWebhook(pid, { url: url.trim(), events: ordered(events) });
      setRotated(null);
      setCreated(w);
      setUrl('');
      setEvents([...EVENT_TYPES]);
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
      {rotated ? (
        <ShownOnce
          id="rotated-hook-title"
          title="Secret rotated"
          label="New signing secret"
          value={rotated.secret}
          onDone={() => setRotated(null)}
        >
          <strong>Copy the new signing secret of {rotated.url} now: this is the only time it is shown.</strong>{' '}
          {rotated.previousSecretExpiresAt ? (
            <span class="previous-expiry">
              Until <time dateTime={rotated.previousSecretExpiresAt}>{fmtDate(rotated.previousSecretExpiresAt)}</time> every delivery is
              signed with both the new and the old secret, so your receiver can switch to the new one without missing any; after that only
              the new one signs.
            </span>
          ) : (
            <span class="previous-expiry">The old secret no longer signs: deliveries are signed with the new one only.</span>
          )}
        </ShownOnce>
      ) : null}
      <form class="row wrap card" onSubmit={create} aria-label="Add a webhook">
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
        <EventChoice legend="Events to send" events={events} onChange={setEvents} idPrefix="new-hook" />
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
              {editing === w.webhookId ? (
                <EditWebhook
                  pid={pid}
                  hook={w}
                  onDone={async (saved) => {
                    setEditing(null);
                    // Focus goes back to this webhook's Edit button.
                    setTimeout(() => document.querySelector<HTMLElement>(`[data-edit="${w.webhookId}"]`)?.focus());
                    if (saved) {
                      setNotice(saved);
                      await load();
                    }
                  }}
                />
              ) : null}
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
                <button
                  type="button"
                  class="small"
                  onClick={() => setEditing(editing === w.webhookId ? null : w.webhookId)}
                  aria-expanded={editing === w.webhookId}
                  aria-label={`Edit webhook ${w.url}`}
                  data-edit={w.webhookId}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="small"
                  onClick={() => (setKeepFor(KEEP_PREVIOUS_CHOICES[0].seconds), setRotating(w))}
                  aria-label={`Rotate the secret of webhook ${w.url}`}
                >
                  Rotate secret
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
      {rotating ? (
        <ConfirmDialog
          title="Rotate this webhook's secret?"
          confirmLabel="Rotate secret"
          onClose={() => setRotating(null)}
          onConfirm={async () => {
            const r = await rotateWebhookSecret(pid, rotating.webhookId, { keepPreviousFor: keepFor });
            setCreated(null);
            setRotated(r);
            setNotice('');
          }}
        >
          <p>
            <code>{rotating.url}</code> gets a new signing secret, shown once. Deploy it to your receiver; meanwhile the old secret can keep
            signing too.
          </p>
          <fieldset class="stack choice">
            <legend>Keep the old secret signing for</legend>
            {KEEP_PREVIOUS_CHOICES.map((c) => (
              <label class="check" key={c.seconds}>
                <input type="radio" name="keep-previous" checked={keepFor === c.seconds} onChange={() => setKeepFor(c.seconds)} />
                {c.label}
              </label>
            ))}
          </fieldset>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** Checkboxes for the event types; says in words that at least one is needed when none is checked. */
function EventChoice(props: { legend: string; events: EventType[]; onChange: (events: EventType[]) => void; idPrefix: string }) {
  const hint = `${props.idPrefix}-events-hint`;
  return (
    <fieldset class="choice" aria-describedby={hint}>
      <legend>{props.legend}</legend>
      <div class="row wrap">
        {EVENT_TYPES.map((t) => (
          <label class="check" key={t}>
            <input
              type="checkbox"
              checked={props.events.includes(t)}
              onChange={(e) =>
                props.onChange(e.currentTarget.checked ? ordered([...props.events, t]) : props.events.filter((x) => x !== t))
              }
            />
            {t}
          </label>
        ))}
      </div>
      <p id={hint} class={props.events.length ? 'hint' : 'hint error'}>
        {props.events.length ? 'At least one event is needed.' : NO_EVENTS}
      </p>
    </fieldset>
  );
}

/** A webhook's URL and events as a form; Save PATCHes only what changed. `onDone` gets the notice to show, or '' (cancelled). */
function EditWebhook({ pid, hook, onDone }: { pid: string; hook: Webhook; onDone: (saved: string) => Promise<void> }) {
  const client = eventsClient();
  const [url, setUrl] = useState(hook.url);
  const [events, setEvents] = useState<EventType[]>(ordered(hook.events));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const id = `edit-${hook.webhookId}`;
  const cancel = () => void onDone('');
  const submit = (e: Event) => {
    e.preventDefault();
    void attempt(
      setError,
      async () => {
        if (events.length === 0) throw new Error(NO_EVENTS);
        const body: UpdateWebhookBody = {};
        if (url.trim() !== hook.url) body.url = url.trim();
        if (ordered(events).join() !== ordered(hook.events).join()) body.events = ordered(events);
        if (!body.url && !body.events) throw new Error('Nothing to save: the URL and events are as they were.');
        await client.updateWebhook(pid, hook.webhookId, body);
        await onDone(`Webhook saved (${Object.keys(body).join(' and ')} changed).`);
      },
      setBusy,
    );
  };
  return (
    <form class="card stack" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && cancel()} aria-label={`Edit webhook ${hook.url}`}>
      <div class="field">
        <label for={`${id}-url`}>URL of this webhook</label>
        <input
          id={`${id}-url`}
          ref={input}
          type="url"
          required
          maxLength={2000}
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </div>
      <EventChoice legend="Events sent to it" events={events} onChange={setEvents} idPrefix={id} />
      <ErrorMsg error={error} />
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          Save webhook
        </button>
        <button type="button" onClick={cancel}>
          Cancel
        </button>
      </div>
    </form>
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
          {data.total} {data.total === 1 ? 'delivery' : 'deliveries'} · page {data.page} of {data.totalPages}
        </Pager>
      ) : null}
    </div>
  );
}
