// Webhooks over HTTP on the suite's database (SQLite, and PostgreSQL in the pg project), with a real
// receiver that verifies signatures with the `standardwebhooks` package: CRUD, secret shown once, a
// join delivered after a 500 (retry with backoff), the delivery log, manual retry, test ping, 404 for
// another user's webhook, bad URLs → 400 naming url, SSRF refusal without --allow-private-webhooks
// (at create, and at send time after a restart without the flag).
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { fails, ISO_RE, issuePaths, ok } from '../helpers/api.js';
import { dbQuery, sha256 } from '../helpers/lifecycle.js';
import { startHookReceiver, waitFor, type HookReceiver } from '../helpers/receivers.js';
import {
  cleanup,
  Client,
  DIALECT,
  responseLog,
  postJoin,
  projectWithKey,
  signedUp,
  startServer,
  uniqueEmail,
  type TestServer,
} from '../helpers/server.js';

let srv: TestServer;
let rx: HookReceiver;
let c: Client;
let p: Awaited<ReturnType<typeof projectWithKey>>;
let hookId = '';
let secret = '';

beforeAll(async () => {
  rx = await startHookReceiver();
  // SMTP (never reached) so a project may turn double opt-in on.
  srv = await startServer({
    args: ['--allow-private-webhooks', '--open-signup'],
    env: { WAITLIST_RETRY_SCHEDULE: '1,1,1', WAITLIST_SMTP_URL: 'smtp://127.0.0.1:9' },
  });
  c = await signedUp(srv.url);
  p = await projectWithKey(c);
});
afterAll(async () => {
  await srv?.stop();
  await rx?.close();
  if (srv) cleanup(srv);
});

const hooks = () => `/api/project/${p.projectId}/webhooks`;

describe(`webhooks on ${DIALECT}`, () => {
  it('creates a webhook: 201, whsec_ secret once, every event type by default', async () => {
    const r = await c.post(hooks(), { url: rx.url });
    const d = ok(r, 201);
    expect(d.webhookId).toMatch(/^wh_/);
    expect(d.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    expect(d.events).toEqual(['entry.created', 'entry.confirmed', 'entry.invited', 'entry.accepted', 'entry.deleted']);
    expect(d).toMatchObject({ url: rx.url, enabled: true });
    expect(d.createdAt).toMatch(ISO_RE);
    hookId = d.webhookId;
    secret = d.secret;
    rx.setSecret(secret);
    const got = ok(await c.get(`${hooks()}/${hookId}`));
    expect(got.secret).toBeUndefined();
    const list = ok(await c.get(hooks()));
    expect(list).toMatchObject({ total: 1, page: 1, totalPages: 1 });
    expect(list.items[0].secret).toBeUndefined();
    expect(JSON.stringify(list)).not.toContain(secret);
  });

  it('refuses bad input with 400 naming the field', async () => {
    for (const url of ['not a url', 'ftp://example.com/x', 'javascript:alert(1)', '', 'http://user:pw@example.com/']) {
      expect(issuePaths(await c.post(hooks(), { url }))).toEqual(['url']);
    }
    expect(issuePaths(await c.post(hooks(), {}))).toEqual(['url']);
    expect(issuePaths(await c.post(hooks(), { url: rx.url, events: ['entry.exploded'] }))[0]).toMatch(/^events/);
    expect(issuePaths(await c.post(hooks(), { url: rx.url, events: [] }))).toEqual(['events']);
    expect(issuePaths(await c.post(hooks(), { url: rx.url, secret: 'whsec_mine' }))).toEqual(['secret']);
    expect(issuePaths(await c.req('PATCH', `${hooks()}/${hookId}`, { enabled: 'yes' }))).toEqual(['enabled']);
  });

  it('delivers entry.created signed, retries a 500, and logs the attempts', async () => {
    rx.answer = (n) => (n === 1 ? 500 : 200);
    const email = uniqueEmail('hook');
    const j = ok(await postJoin(srv.url, p.slug, p.key, { email, name: 'Hook' }), 201);
    const got = await waitFor(() => rx.received.find((m) => m.body.data.entryId === j.entryId), 20_000, 'delivery');
    expect(got.type).toBe('entry.created');
    expect(got.body).toMatchObject({ type: 'entry.created', projectId: p.projectId, data: { entryId: j.entryId, email, name: 'Hook' } });
    expect(got.body.timestamp).toMatch(ISO_RE);
    // The payload's entry is the management API's, field for field, its position at the join included.
    const shown = ok(await c.get(`/api/project/${p.projectId}/waitlist/${j.entryId}`));
    expect(j.position).toBeGreaterThanOrEqual(1);
    expect(got.body.data).toEqual({ ...shown, position: j.position });
    expect(got.id).toMatch(/^evt_/);
    expect(got.headers['webhook-signature']).toMatch(/^v1,/);
    expect(rx.attempts.get(got.id)).toBe(2);
    expect(rx.badSignatures).toBe(0);
    const log = await waitFor(
      async () => {
        const l = ok(await c.get(`${hooks()}/${hookId}/deliveries`));
        return l.items.find((d: any) => d.eventId === got.id && d.status === 'delivered') && l;
      },
      10_000,
      'delivered in the log',
    );
    const d = log.items.find((x: any) => x.eventId === got.id);
    expect(Object.keys(d).sort()).toEqual(
      [
        'deliveryId',
        'eventId',
        'type',
        'status',
        'attempts',
        'lastStatusCode',
        'lastError',
        'nextAttemptAt',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(d).toMatchObject({
      type: 'entry.created',
      status: 'delivered',
      attempts: 2,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(d.deliveryId).toMatch(/^dlv_/);
  });

  it('an entry event carries the position the management API shows at its change (created, confirmed)', async () => {
    const q = await projectWithKey(c);
    const rx2 = await startHookReceiver(); // its own secret
    rx2.setSecret(ok(await c.post(`/api/project/${q.projectId}/webhooks`, { url: rx2.url }), 201).secret);
    onTestFinished(() => rx2.close());
    const data = async (id: string, type: string) =>
      (await waitFor(() => rx2.received.find((m) => m.type === type && m.body.data.entryId === id), 20_000, type)).body.data;
    const a = ok(await postJoin(srv.url, q.slug, q.key, { email: uniqueEmail('pos') }), 201);
    const b = ok(await postJoin(srv.url, q.slug, q.key, { email: uniqueEmail('pos') }), 201);
    expect([a.position, b.position]).toEqual([1, 2]);
    expect((await data(a.entryId, 'entry.created')).position).toBe(1);
    const createdB = await data(b.entryId, 'entry.created');
    expect(createdB.position).toBe(2);
    expect(createdB).toEqual(ok(await c.get(`/api/project/${q.projectId}/waitlist/${b.entryId}`)));
    // Double opt-in: a pending entry has no place yet; its confirmation gives it one (behind a and b).
    ok(await c.put(`/api/project/${q.projectId}/settings`, { doubleOptIn: true }));
    const d = ok(await postJoin(srv.url, q.slug, q.key, { email: uniqueEmail('pos') }), 201);
    expect(d).toMatchObject({ status: 'pending', position: null });
    expect(await data(d.entryId, 'entry.created')).toMatchObject({ status: 'pending', position: null });
    const token = `confirm-${d.entryId}`;
    await dbQuery(srv, 'UPDATE entries SET confirm_token_hash = ? WHERE id = ?', [sha256(token), d.entryId]);
    ok(await new Client(srv.url).post(`/v1/waitlist/${q.slug}/confirm`, { token }));
    const confirmed = await data(d.entryId, 'entry.confirmed');
    expect(confirmed).toMatchObject({ status: 'waiting', position: 3 });
    expect(confirmed).toEqual(ok(await c.get(`/api/project/${q.projectId}/waitlist/${d.entryId}`)));
  });

  it('sends a test ping and retries a delivery on demand', async () => {
    rx.answer = () => 200;
    const ping = ok(await c.post(`${hooks()}/${hookId}/test`));
    expect(ping).toMatchObject({ type: 'ping', status: 'delivered', attempts: 1, lastStatusCode: 200 });
    const m = rx.received.find((x) => x.id === ping.eventId)!;
    expect(m.body).toMatchObject({ type: 'ping', projectId: p.projectId, data: { webhookId: hookId } });
    const again = ok(await c.post(`${hooks()}/${hookId}/deliveries/${ping.deliveryId}/retry`));
    expect(again).toMatchObject({ deliveryId: ping.deliveryId, status: 'delivered', attempts: 2 });
    expect(rx.attempts.get(ping.eventId)).toBe(2); // the same event id: receivers dedupe on it
    fails(await c.post(`${hooks()}/${hookId}/deliveries/dlv_nope/retry`), 404, 'not_found');
  });

  it('rotates the secret: the new one shown once, both signing for keepPreviousFor, then the new one alone', async () => {
    const signatures = (m: { headers: Record<string, string> }) => m.headers['webhook-signature']!.split(' ');
    const pingWith = async (verifyAs: string) => {
      rx.setSecret(verifyAs);
      const d = ok(await c.post(`${hooks()}/${hookId}/test`));
      expect(d).toMatchObject({ status: 'delivered' });
      return rx.received.find((m) => m.id === d.eventId)!;
    };
    const first = secret;
    const r = ok(await c.post(`${hooks()}/${hookId}/rotate-secret`));
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.secret).not.toBe(first);
    expect(Date.parse(r.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(86_390_000);
    expect(Date.parse(r.previousSecretExpiresAt) - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect(ok(await c.get(`${hooks()}/${hookId}`))).not.toHaveProperty('secret');
    // Both sign: a receiver still on the old secret and one on the new both verify the same delivery.
    const both = await pingWith(first);
    expect(signatures(both)).toHaveLength(2);
    const raw = JSON.stringify(both.body);
    expect(() => new Webhook(r.secret).verify(raw, both.headers)).not.toThrow();
    // keepPreviousFor 0: the previous one is dropped at once.
    const r2 = ok(await c.req('POST', `${hooks()}/${hookId}/rotate-secret`, { keepPreviousFor: 0 }));
    expect(r2.previousSecretExpiresAt).toBeNull();
    const alone = await pingWith(r2.secret);
    expect(signatures(alone)).toHaveLength(1);
    expect(() => new Webhook(r.secret).verify(JSON.stringify(alone.body), alone.headers)).toThrow();
    // Bad bodies name the field; another user's webhook is 404.
    expect(issuePaths(await c.req('POST', `${hooks()}/${hookId}/rotate-secret`, { keepPreviousFor: -1 }))).toEqual(['keepPreviousFor']);
    expect(issuePaths(await c.req('POST', `${hooks()}/${hookId}/rotate-secret`, { keepPreviousFor: 604_801 }))).toEqual([
      'keepPreviousFor',
    ]);
    expect(issuePaths(await c.req('POST', `${hooks()}/${hookId}/rotate-secret`, { keep: 1 }))).toEqual(['keep']);
    fails(await (await signedUp(srv.url)).post(`${hooks()}/${hookId}/rotate-secret`), 404, 'not_found');
    // The secrets appear in their own rotation responses only.
    for (const s of [r.secret, r2.secret]) {
      expect(responseLog.filter((x) => x.text.includes(s) && !x.path.endsWith('/rotate-secret'))).toEqual([]);
    }
    rx.setSecret(r2.secret);
  });

  it('updates url, events and enabled; filters by event type; a disabled webhook gets nothing', async () => {
    const u = ok(await c.req('PATCH', `${hooks()}/${hookId}`, { events: ['entry.deleted'] }));
    expect(u.events).toEqual(['entry.deleted']);
    const u2 = ok(await c.put(`${hooks()}/${hookId}`, { enabled: false }));
    expect(u2.enabled).toBe(false);
    ok(await c.put(`${hooks()}/${hookId}`, { enabled: true }));
    const before = rx.received.length;
    const j = ok(await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail('filter') }), 201);
    ok(await c.del(`/api/project/${p.projectId}/waitlist/${j.entryId}`));
    const del = await waitFor(
      () => rx.received.find((m) => m.type === 'entry.deleted' && m.body.data.entryId === j.entryId),
      10_000,
      'entry.deleted',
    );
    expect(del).toBeTruthy();
    expect(rx.received.slice(before).filter((m) => m.type === 'entry.created')).toHaveLength(0);
  });

  it('disabling a webhook gives up its deliveries waiting for a retry at once', async () => {
    // Its own server with the default schedule (the next attempt 10 s away) and a receiver that fails.
    const own = await startServer({ args: ['--allow-private-webhooks'] });
    const failing = await startHookReceiver();
    onTestFinished(async () => {
      await own.stop();
      cleanup(own);
      await failing.close();
    });
    failing.answer = () => 500;
    const oc = await signedUp(own.url);
    const op = await projectWithKey(oc);
    const h = ok(await oc.post(`/api/project/${op.projectId}/webhooks`, { url: failing.url }), 201);
    failing.setSecret(h.secret);
    ok(await postJoin(own.url, op.slug, op.key, { email: uniqueEmail('retrying') }), 201);
    const log = `/api/project/${op.projectId}/webhooks/${h.webhookId}/deliveries`;
    const retrying = await waitFor(
      async () => ok(await oc.get(log)).items.find((d: any) => d.status === 'pending' && d.attempts === 1 && d.lastStatusCode === 500),
      15_000,
      'a delivery waiting for its retry',
    );
    ok(await oc.put(`/api/project/${op.projectId}/webhooks/${h.webhookId}`, { enabled: false }));
    const given = ok(await oc.get(log)).items.find((d: any) => d.deliveryId === retrying.deliveryId);
    expect(given).toMatchObject({ status: 'failed', lastError: 'webhook is disabled', nextAttemptAt: null, attempts: 1 });
  });

  it("answers 404 for another user's webhooks and after delete", async () => {
    const other = await signedUp(srv.url);
    for (const r of [
      await other.get(`${hooks()}/${hookId}`),
      await other.get(`${hooks()}/${hookId}/deliveries`),
      await other.post(`${hooks()}/${hookId}/test`),
      await other.del(`${hooks()}/${hookId}`),
    ])
      fails(r, 404, 'not_found');
    const d = ok(await c.del(`${hooks()}/${hookId}`));
    expect(d.deletedAt).toMatch(ISO_RE);
    fails(await c.get(`${hooks()}/${hookId}`), 404, 'not_found');
    fails(await c.get(`${hooks()}/${hookId}/deliveries`), 404, 'not_found');
    // The secret appears in the create response only.
    const leaks = responseLog.filter((r) => r.text.includes(secret) && !(r.method === 'POST' && r.status === 201 && r.path === hooks()));
    expect(leaks.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(srv.output()).not.toContain(secret);
  });
});

describe(`SSRF protection on ${DIALECT}`, () => {
  it('refuses loopback/private webhook URLs without --allow-private-webhooks, at create and at send time', async () => {
    // A webhook to 127.0.0.1, saved while private targets were allowed…
    const h = ok(await c.post(hooks(), { url: rx.url }), 201);
    rx.setSecret(h.secret);
    await srv.stop();
    // …then the server restarts without the flag: the send-time check refuses it.
    srv = await startServer({ reuse: srv, args: ['--open-signup'], env: { WAITLIST_RETRY_SCHEDULE: '60' } });
    const c2 = new Client(srv.url);
    c2.cookie = c.cookie;
    c = c2;
    for (const url of [
      rx.url,
      'http://localhost:9/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/',
      'http://192.168.0.10/',
      'http://[fe80::1]/',
      'http://0.0.0.0/',
    ]) {
      const paths = issuePaths(await c.post(hooks(), { url }));
      expect(paths, url).toEqual(['url']);
    }
    // The message reads on its own after the path (the CLI prints "url: <message>").
    const refused = await c.post(hooks(), { url: 'http://10.1.2.3/x' });
    expect(refused.body.error.issues[0].message).toMatch(/^url host 10\.1\.2\.3 resolves to 10\.1\.2\.3, a private/);
    const before = rx.attempts.size;
    const j = ok(await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail('ssrf') }), 201);
    const d = await waitFor(
      async () => {
        const l = ok(await c.get(`${hooks()}/${h.webhookId}/deliveries`));
        return l.items.find((x: any) => x.attempts >= 1);
      },
      10_000,
      'a refused attempt',
    );
    expect(d).toMatchObject({ status: 'pending', lastStatusCode: null });
    expect(d.lastError).toMatch(/refused: .*127\.0\.0\.1.*private/);
    expect(rx.attempts.size).toBe(before); // nothing reached the receiver
    void j;
  });
});
