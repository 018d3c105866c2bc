// Email over a real SMTP server started by the test (smtp-server + mailparser), on the suite's
// database: welcome and sign-up notice emails through the outbox, plain-text + HTML parts, per-project
// templates (GET/PUT, preview), the email log, List-Unsubscribe headers, refused SMTP auth logged while
// the server keeps running, and 409 smtp_not_configured without SMTP.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mailer } from '../../src/core/mailer.js';
import { fails, issuePaths, ok } from '../helpers/api.js';
import { startMailReceiver, waitFor, type MailReceiver } from '../helpers/receivers.js';
import {
  DIALECT,
  postJoin,
  projectWithKey,
  signedUp,
  uniqueEmail,
  type Client,
  type TestServer,
  serversForFile,
} from '../helpers/server.js';

let smtp: MailReceiver;
let srv: TestServer;
let c: Client;
let p: Awaited<ReturnType<typeof projectWithKey>>;
const serve = serversForFile();

beforeAll(async () => {
  smtp = await startMailReceiver();
  srv = await serve({
    args: [
      '--smtp-url',
      `smtp://127.0.0.1:${smtp.port}`,
      '--mail-from',
      'My App <noreply@example.com>',
      '--public-url',
      'https://wl.example.com/',
    ],
  });
  c = await signedUp(srv.url);
  p = await projectWithKey(c, 'Rocket Club');
});
afterAll(async () => {
  await smtp?.close();
});

const mailsTo = (addr: string) => smtp.mails.filter((m) => (m.to as any)?.text?.includes(addr));

describe(`email on ${DIALECT}`, () => {
  it('has default templates and settings', async () => {
    const t = ok(await c.get(`/api/project/${p.projectId}/templates`));
    expect(Object.keys(t).sort()).toEqual(['confirmation', 'digest', 'invite', 'notice', 'welcome']);
    expect(t.welcome).toMatchObject({ custom: false });
    expect(t.welcome.subject).toContain('{{projectName}}');
    const s = ok(await c.get(`/api/project/${p.projectId}/settings`));
    expect(s).toMatchObject({ welcomeEmail: false, notifyEmails: [], notify: 'off' });
  });

  it('sends a welcome email and a notice per sign-up, with text and HTML parts', async () => {
    const st = ok(
      await c.put(`/api/project/${p.projectId}/settings`, { welcomeEmail: true, notifyEmails: ['founder@example.com'], notify: 'each' }),
    );
    expect(st).toMatchObject({ welcomeEmail: true, notifyEmails: ['founder@example.com'], notify: 'each' });
    const email = uniqueEmail('welcome');
    ok(await postJoin(srv.url, p.slug, p.key, { email, name: 'Ada <b>' }), 201);
    const [welcome] = await waitFor(() => mailsTo(email).length && mailsTo(email), 15_000, 'welcome email');
    expect(welcome!.subject).toBe("You're on the Rocket Club waitlist");
    expect((welcome!.from as any).value[0]).toMatchObject({ name: 'My App', address: 'noreply@example.com' });
    expect(welcome!.text).toContain('Thanks for joining the Rocket Club waitlist');
    expect(welcome!.html).toContain('Ada &lt;b&gt;'); // escaped in HTML
    expect(welcome!.text).toContain('Ada <b>');
    const notice = await waitFor(() => mailsTo('founder@example.com').find((m) => m.subject?.includes(email)), 15_000, 'notice');
    expect(notice.subject).toBe(`New sign-up on Rocket Club: ${email}`);
    expect(notice.text).toContain('https://wl.example.com/');
    const log = await waitFor(
      async () => {
        const l = ok(await c.get(`/api/project/${p.projectId}/emails`));
        return l.items.filter((e: any) => e.status === 'delivered').length >= 2 && l;
      },
      10_000,
      'email log',
    );
    expect(log.items[0]).toMatchObject({ status: 'delivered', attempts: 1, lastError: null });
    expect(log.items.map((e: any) => e.template).sort()).toEqual(['notice', 'welcome']);
    expect(log.items.map((e: any) => e.to)).toContain(email);
  });

  it('uses the project template; PUT changes only the parts given, null restores the default', async () => {
    const t = ok(await c.put(`/api/project/${p.projectId}/templates`, { welcome: { subject: 'Hello {{name}} from {{projectName}}' } }));
    expect(t.welcome).toMatchObject({ subject: 'Hello {{name}} from {{projectName}}', custom: true });
    expect(t.welcome.text).toContain('Thanks for joining'); // untouched part keeps the default
    const email = uniqueEmail('custom');
    ok(await postJoin(srv.url, p.slug, p.key, { email, name: 'Grace' }), 201);
    const [m] = await waitFor(() => mailsTo(email).length && mailsTo(email), 15_000, 'custom welcome');
    expect(m!.subject).toBe('Hello Grace from Rocket Club');
    const prev = ok(
      await c.post(`/api/project/${p.projectId}/templates/preview`, { template: 'welcome', html: '<p>{{name}} #{{position}}</p>' }),
    );
    expect(prev).toMatchObject({ subject: 'Hello Ada from Rocket Club', html: '<p>Ada #42</p>' });
    expect(issuePaths(await c.put(`/api/project/${p.projectId}/templates`, { welcome: { subject: 'Hi {{#name}' } }))).toEqual([
      'welcome.subject',
    ]);
    expect(issuePaths(await c.put(`/api/project/${p.projectId}/templates`, { welcom: {} }))).toEqual(['welcom']);
    const reset = ok(await c.put(`/api/project/${p.projectId}/templates`, { welcome: null }));
    expect(reset.welcome.custom).toBe(false);
  });

  it('double opt-in: a confirmation email with the confirm link; a re-join resends the same link, throttled', async () => {
    const q = await projectWithKey(c, 'Opt In Club');
    ok(await c.put(`/api/project/${q.projectId}/settings`, { doubleOptIn: true }));
    const email = uniqueEmail('optin');
    const j = ok(await postJoin(srv.url, q.slug, q.key, { email, name: 'Ada' }), 201);
    expect(j).toMatchObject({ status: 'pending', position: null });
    const [first] = await waitFor(() => mailsTo(email).length && mailsTo(email), 15_000, 'confirmation email');
    const linkRe = new RegExp(`https://wl\\.example\\.com/w/${q.slug}/confirm\\?token=([\\w%-]+)`);
    const link = linkRe.exec(first!.text ?? '');
    expect(link, first!.text).not.toBeNull();
    expect(first!.html).toContain(link![0]);
    // It also carries the subscriber's leave link.
    expect(first!.text).toContain(`https://wl.example.com/w/${q.slug}/leave?token=`);
    // Joining again while pending: 409, and the confirmation again, with the same link.
    fails(await postJoin(srv.url, q.slug, q.key, { email }), 409, 'email_taken');
    const second = (await waitFor(() => mailsTo(email).length >= 2 && mailsTo(email), 15_000, 'resent confirmation'))[1]!;
    expect(linkRe.exec(second.text ?? '')?.[1]).toBe(link![1]);
    // A third re-join within 10 minutes sends nothing more.
    fails(await postJoin(srv.url, q.slug, q.key, { email }), 409, 'email_taken');
    await new Promise((r) => setTimeout(r, 1500));
    expect(mailsTo(email)).toHaveLength(2);
    const token = decodeURIComponent(link![1]!);
    const confirmed = ok(await c.post(`/v1/waitlist/${q.slug}/confirm`, { token }));
    expect(confirmed).toMatchObject({ email, status: 'waiting', position: 1, total: 1 });
    ok(await c.post(`/v1/waitlist/${q.slug}/confirm`, { token })); // again: 200
    expect(ok(await c.get(`/api/project/${q.projectId}/waitlist/${j.entryId}`))).toMatchObject({ status: 'waiting', position: 1 });
  });

  it("every email to a subscriber carries its status and leave links and List-Unsubscribe, on the join's statusToken", async () => {
    const q = await projectWithKey(c, 'Links Club');
    ok(await c.put(`/api/project/${q.projectId}/settings`, { doubleOptIn: true, welcomeEmail: true }));
    const email = uniqueEmail('links');
    const j = ok(await postJoin(srv.url, q.slug, q.key, { email, name: 'Lin' }), 201);
    const statusUrl = `https://wl.example.com/w/${q.slug}/status?token=${encodeURIComponent(j.statusToken)}`;
    const leaveUrl = `https://wl.example.com/w/${q.slug}/leave?token=${encodeURIComponent(j.statusToken)}`;
    const headersOf = (m: (typeof smtp.mails)[number]) => smtp.rawHeaders[smtp.mails.indexOf(m)]!;
    const carriesLinks = (m: (typeof smtp.mails)[number]) => {
      expect(m.text).toContain(statusUrl);
      expect(m.text).toContain(leaveUrl);
      expect(m.html).toContain(leaveUrl);
      expect(headersOf(m).get('list-unsubscribe')).toContain(leaveUrl);
      expect(headersOf(m).get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    };
    const [confirmation] = await waitFor(() => mailsTo(email).length && mailsTo(email), 15_000, 'confirmation');
    carriesLinks(confirmation!);
    // Ten re-joins at the same moment: one resend (the first re-join's), with the same links.
    const again = await Promise.all(Array.from({ length: 10 }, () => postJoin(srv.url, q.slug, q.key, { email })));
    expect(again.map((r) => r.status)).toEqual(Array(10).fill(409));
    const resent = (await waitFor(() => mailsTo(email).length >= 2 && mailsTo(email), 15_000, 'resent confirmation'))[1]!;
    carriesLinks(resent);
    await new Promise((r) => setTimeout(r, 1500));
    expect(mailsTo(email)).toHaveLength(2);
    // Confirmed: the welcome says the place and carries the same links.
    const token = decodeURIComponent(/confirm\?token=([\w%-]+)/.exec(confirmation!.text ?? '')![1]!);
    ok(await c.post(`/v1/waitlist/${q.slug}/confirm`, { token }));
    const welcome = (await waitFor(() => mailsTo(email).length >= 3 && mailsTo(email), 15_000, 'welcome'))[2]!;
    expect(welcome.subject).toBe("You're on the Links Club waitlist");
    // The HTML part is a whole document (a bare fragment is scored as spam), the template's body inside.
    expect(String(welcome.html)).toMatch(/^<!DOCTYPE html>\n<html><head><meta charset="utf-8">.*<\/head><body><p>Hi/s);
    expect(String(welcome.html)).toMatch(/<\/body><\/html>$/);
    expect(welcome.text).toContain('You are number 1.');
    expect(welcome.text).toContain(`https://wl.example.com/w/${q.slug}?ref=${encodeURIComponent(j.referralCode)}`);
    carriesLinks(welcome);
    // The invite too.
    const invited = ok(await c.post(`/api/project/${q.projectId}/invites`, { entryIds: [j.entryId] }));
    const invite = (await waitFor(() => mailsTo(email).length >= 4 && mailsTo(email), 15_000, 'invite'))[3]!;
    expect(invite.subject).toBe("You're invited to Links Club");
    // The expiry for people: "11 December 2026, 14:28 UTC", not the ISO time.
    const exp = new Date(invited.invited[0].expiresAt);
    const month = exp.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
    const hm = exp.toISOString().slice(11, 16);
    expect(invite.text).toContain(`The invite expires on ${exp.getUTCDate()} ${month} ${exp.getUTCFullYear()}, ${hm} UTC.`);
    carriesLinks(invite);
    // The links work: the status page, then the one-click unsubscribe a mail app posts.
    expect((await c.get(`/v1/waitlist/${q.slug}/status?token=${encodeURIComponent(j.statusToken)}`)).status).toBe(200);
    const unsub = await fetch(`${srv.url}/w/${q.slug}/leave?token=${encodeURIComponent(j.statusToken)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(unsub.status).toBe(200);
    fails(await c.get(`/api/project/${q.projectId}/waitlist/${j.entryId}`), 404, 'not_found');
    // Erased for good: not even the sent emails' dropped variables linger in the file's free space. The
    // erasing commit reaches the database file at the next checkpoint (the worker's, at least once a
    // second; later on a loaded machine): waited for, up to 15 s.
    if (DIALECT === 'sqlite') {
      await waitFor(() => !readFileSync(srv.dbFile).toString('latin1').includes(email), 15_000, 'the address gone from the file');
    }
  });

  it('a welcome without double opt-in carries the place and the links too', async () => {
    const q = await projectWithKey(c, 'Welcome Links');
    ok(await c.put(`/api/project/${q.projectId}/settings`, { welcomeEmail: true }));
    ok(await postJoin(srv.url, q.slug, q.key, { email: uniqueEmail('first') }), 201);
    const email = uniqueEmail('second');
    const j = ok(await postJoin(srv.url, q.slug, q.key, { email }), 201);
    const [m] = await waitFor(() => mailsTo(email).length && mailsTo(email), 15_000, 'welcome');
    expect(m!.text).toContain('You are number 2.');
    expect(m!.text).toContain(`https://wl.example.com/w/${q.slug}/status?token=${encodeURIComponent(j.statusToken)}`);
    expect(smtp.rawHeaders[smtp.mails.indexOf(m!)]!.get('list-unsubscribe')).toContain(
      `https://wl.example.com/w/${q.slug}/leave?token=${encodeURIComponent(j.statusToken)}`,
    );
  });

  it('adds one-click List-Unsubscribe headers when the email has a leave link', async () => {
    const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'x@example.com' });
    const leave = 'https://wl.example.com/w/rocket/leave?token=abc';
    expect((await mailer.send('unsub@example.com', { subject: 's', text: 't', html: '<p>h</p>' }, leave)).ok).toBe(true);
    expect((await mailer.send('nounsub@example.com', { subject: 's', text: 't', html: '<p>h</p>' })).ok).toBe(true);
    mailer.close();
    const i = smtp.mails.findIndex((m) => (m.to as any).text === 'unsub@example.com');
    expect(smtp.rawHeaders[i]!.get('list-unsubscribe')).toContain(leave);
    expect(smtp.rawHeaders[i]!.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const j = smtp.mails.findIndex((m) => (m.to as any).text === 'nounsub@example.com');
    expect(smtp.rawHeaders[j]!.has('list-unsubscribe')).toBe(false);
  });
});

describe(`email faults on ${DIALECT}`, () => {
  it('without SMTP a setting that needs email answers 409 smtp_not_configured', async () => {
    const s = await serve();
    const c2 = await signedUp(s.url);
    const p2 = await projectWithKey(c2);
    fails(await c2.put(`/api/project/${p2.projectId}/settings`, { welcomeEmail: true }), 409, 'smtp_not_configured');
    fails(await c2.put(`/api/project/${p2.projectId}/settings`, { notify: 'hourly' }), 409, 'smtp_not_configured');
    ok(await c2.put(`/api/project/${p2.projectId}/settings`, { notifyEmails: ['a@example.com'], notify: 'off' }));
    expect(issuePaths(await c2.put(`/api/project/${p2.projectId}/settings`, { notify: 'daily' }))).toEqual(['notify']);
    expect(issuePaths(await c2.put(`/api/project/${p2.projectId}/settings`, { notifyEmails: ['nope'] }))[0]).toMatch(/^notifyEmails/);
    fails(await c2.get(`/api/project/${p.projectId}/templates`), 404, 'not_found');
  });

  it('an SMTP server refusing auth: the email log says so and the server keeps running', async () => {
    const strict = await startMailReceiver({ user: 'right', password: 'right-pass' });
    const s = await serve({
      args: ['--smtp-url', `smtp://wrong:wrong-pass@127.0.0.1:${strict.port}`],
      env: { WAITLIST_RETRY_SCHEDULE: '60' },
    });
    try {
      const c3 = await signedUp(s.url);
      const p3 = await projectWithKey(c3);
      ok(await c3.put(`/api/project/${p3.projectId}/settings`, { welcomeEmail: true }));
      ok(await postJoin(s.url, p3.slug, p3.key, { email: uniqueEmail('auth') }), 201);
      const e = await waitFor(
        async () => ok(await c3.get(`/api/project/${p3.projectId}/emails`)).items.find((x: any) => x.attempts >= 1),
        15_000,
        'attempt',
      );
      expect(e).toMatchObject({ template: 'welcome', status: 'pending', lastStatusCode: 535 });
      expect(e.lastError).toMatch(/EAUTH|auth/i);
      expect(e.lastError).not.toContain('wrong-pass');
      expect(s.output()).not.toContain('wrong-pass');
      expect(strict.mails).toHaveLength(0);
      ok(await c3.get('/api/auth/me'));
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
