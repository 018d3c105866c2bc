// Pure pieces of the events layer: the SSRF address table, signatures (checked by `standardwebhooks`),
// the fan-out plan (webhook filters, notices per sign-up, hourly digest rows), template rendering.
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { encodeTime } from 'ulidx';
import { digestId, fanOutPlan } from '../../src/core/fanout.js';
import { newEvent } from '../../src/core/outbox.js';
import { isPrivateAddress, webhookUrlProblem } from '../../src/core/ssrf.js';
import { DEFAULT_TEMPLATES, renderEmail, templateProblem } from '../../src/core/templates.js';
import { newWebhookSecret, signWebhook } from '../../src/core/webhook-send.js';
import type { WebhookRow } from '../../src/db/outbox.js';
import type { ProjectRow } from '../../src/db/store.js';

describe('SSRF address table', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '64:ff9b::a00:1',
    'not-an-ip',
    // IPv6 forms that embed an IPv4 address: IPv4-compatible, IPv4-mapped in hex, SIIT, 6to4, Teredo.
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:7f00:1',
    '::ffff:0:7f00:1',
    '2002:7f00:1::',
    '2002:a00:1::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '64:ff9b:1::a00:1',
  ])('%s is refused', (ip) => expect(isPrivateAddress(ip)).toBe(true));
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '2001:4860:4860::8888',
  ])('%s is public', (ip) => expect(isPrivateAddress(ip)).toBe(false));
  it('checks URLs before DNS, and leaves unresolvable names to send time', async () => {
    expect(await webhookUrlProblem('http://[::1]:80/x', false)).toMatch(/private|loopback/);
    expect(await webhookUrlProblem('http://localhost/x', false)).toMatch(/loopback/);
    expect(await webhookUrlProblem('http://localhost./x', false)).toMatch(/loopback/);
    expect(await webhookUrlProblem('http://a.localhost./x', false)).toMatch(/loopback/);
    expect(await webhookUrlProblem('http://[::127.0.0.1]/x', false)).toMatch(/private|loopback/);
    expect(await webhookUrlProblem('http://[2002:7f00:1::]/x', false)).toMatch(/private|loopback/);
    expect(await webhookUrlProblem('http://127.0.0.1/x', true)).toBeNull();
    expect(await webhookUrlProblem('gopher://example.com/', true)).toMatch(/http or https/);
    expect(await webhookUrlProblem('https://does-not-exist.invalid/hook', false)).toBeNull();
  });
});

describe('signatures', () => {
  it('are Standard Webhooks signatures (verified by the reference library)', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'entry.created', data: { email: 'é@example.com' } });
    const ts = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': signWebhook(secret, 'evt_1', ts, body) };
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: 'entry.created' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });
});

describe('fan-out plan', () => {
  const hook = (id: string, events: string[], projectId = 'prj_1'): WebhookRow => ({
    id,
    projectId,
    url: 'https://example.com',
    events: JSON.stringify(events),
    secret: 's',
    enabled: true,
    createdAt: 0,
    updatedAt: 0,
    previousSecret: null,
    previousSecretExpiresAt: null,
  });
  const project = (settings: object): ProjectRow => ({
    id: 'prj_1',
    userId: 'u',
    name: 'P',
    slug: 'ppp',
    createdAt: 0,
    updatedAt: 0,
    deletedAt: null,
    allowedOrigins: null,
    blockDisposable: false,
    honeypotField: null,
    settings: JSON.stringify(settings),
  });
  const at = Date.UTC(2030, 0, 1, 10, 25);
  const created = { ...newEvent('entry.created', 'prj_1', { email: 'a@x.io', name: 'A' }, at), fannedOut: false };

  it('sends to the webhooks subscribed to the type', () => {
    const out = fanOutPlan(false)(created, [hook('wh_a', ['entry.created']), hook('wh_b', ['entry.deleted'])], project({}));
    expect(out.map((d) => [d.kind, d.webhookId, d.eventId])).toEqual([['webhook', 'wh_a', created.id]]);
  });
  it("reads a webhook's changed event list on the next event (one plan, many events)", () => {
    const plan = fanOutPlan(false);
    expect(plan(created, [hook('wh_a', ['entry.deleted'])], project({}))).toEqual([]);
    expect(plan(created, [hook('wh_a', ['entry.deleted', 'entry.created'])], project({})).map((d) => d.webhookId)).toEqual(['wh_a']);
    expect(plan(created, [hook('wh_a', ['entry.deleted'])], project({}))).toEqual([]);
  });
  it('adds one notice per address, or one digest row per address and hour, only with email on', () => {
    const each = project({ notify: 'each', notifyEmails: ['f@x.io', 'g@x.io'] });
    expect(fanOutPlan(false)(created, [], each)).toEqual([]);
    const notices = fanOutPlan(true)(created, [], each);
    expect(notices.map((d) => [d.type, d.recipient])).toEqual([
      ['notice', 'f@x.io'],
      ['notice', 'g@x.io'],
    ]);
    expect(JSON.parse(notices[0]!.data!)).toEqual({ email: 'a@x.io', name: 'A' });
    const hourly = fanOutPlan(true)(created, [], project({ notify: 'hourly', notifyEmails: ['f@x.io'] }));
    const hour = Date.UTC(2030, 0, 1, 10);
    expect(hourly).toMatchObject([
      { type: 'digest', recipient: 'f@x.io', id: digestId('prj_1', hour, 'f@x.io'), nextAttemptAt: hour + 3_600_000 },
    ]);
    // Keyed by the address (any case), not by its place in the list; an eml_ id of the hour's time.
    const moved = fanOutPlan(true)(created, [], project({ notify: 'hourly', notifyEmails: ['new@x.io', 'F@x.io'] }));
    expect(moved.map((d) => d.id)).toEqual([digestId('prj_1', hour, 'new@x.io'), hourly[0]!.id]);
    expect(hourly[0]!.id).toMatch(new RegExp(`^eml_${encodeTime(hour, 10)}[0-9A-HJKMNP-TV-Z]{16}$`));
    const pending = { ...newEvent('entry.created', 'prj_1', { email: 'p@x.io', status: 'pending' }, at), fannedOut: false };
    expect(fanOutPlan(true)(pending, [], each)).toEqual([]); // not a sign-up until confirmed
  });
});

describe('templates', () => {
  it('escape HTML in the HTML part only, and keep subjects on one line', () => {
    const r = renderEmail(DEFAULT_TEMPLATES.welcome, { projectName: 'A & B', name: '<i>x</i>', leaveUrl: 'https://s/leave?token=a&b=1' });
    expect(r.subject).toBe("You're on the A & B waitlist");
    expect(r.html).toContain('&lt;i&gt;x&lt;/i&gt;');
    // Links stay as written in the HTML part (only & < > " ' ` are escaped).
    expect(r.html).toContain('href="https://s/leave?token=a&amp;b=1"');
    expect(r.text).toContain('<i>x</i>');
    expect(r.text).toContain('https://s/leave?token=a&b=1');
    expect(renderEmail({ subject: 'Hi {{name}}', text: '', html: '' }, { name: 'a\r\nBcc: evil@x.io' }).subject).toBe(
      'Hi a Bcc: evil@x.io',
    );
    expect(templateProblem('{{#a}}x')).toMatch(/syntax/);
    expect(templateProblem('{{a}}')).toBeNull();
    const nested = (n: number, tag = '#') => `${`{{${tag}a}}`.repeat(n)}x${'{{/a}}'.repeat(n)}`;
    expect(templateProblem(nested(20))).toBeNull();
    expect(templateProblem(nested(21))).toMatch(/at most 20 levels/);
    expect(templateProblem(nested(21, '^'))).toMatch(/at most 20 levels/);
  });
});
