// Dashboard additions from the dashboard audit (/work/notes/audit-dashboard.md, finding 8 and low ones), in a
// real headless Chromium (Debian's /usr/bin/chromium via playwright-core) against a real `waitlist serve` on a
// temporary SQLite, without SMTP: the Entries tab's status filter, sort and an entry's detail (metadata
// editing, a per-entry invite), the email and join-protection settings, Stats by status, paged logs, and
// the phone-width and deep-link fixes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, signedInContext, watchedPage } from '../helpers/browser.js';
import { startHookReceiver, startMailReceiver, waitFor } from '../helpers/receivers.js';
import { type Client, cleanup, postJoin, projectWithKey, signedUp, startServer, uniqueEmail, type TestServer } from '../helpers/server.js';

// page.evaluate callbacks run in the browser (the test files compile without lib.dom).
declare const document: any;
declare const getComputedStyle: any;

describe.skipIf(!HAVE_CHROMIUM)('dashboard settings and views in Chromium', () => {
  let srv: TestServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let admin: Client;
  const email = 'settings@example.com';
  const password = 'a long password';
  let p: Awaited<ReturnType<typeof projectWithKey>>;
  const problems: string[] = [];
  const joined: { email: string; entryId: string; referralCode: string }[] = [];

  beforeAll(async () => {
    srv = await startServer({ args: ['--allow-private-webhooks'] });
    admin = await signedUp(srv.url, email, password);
    p = await projectWithKey(admin, 'Settings');
    for (let i = 0; i < 5; i++) {
      const body: Record<string, unknown> = { email: uniqueEmail(`e${i}`), name: `Person ${i}`, metadata: { n: i } };
      if (i === 4) body.ref = joined[0]!.referralCode;
      const r = await postJoin(srv.url, p.slug, p.key, body);
      expect(r.status).toBe(201);
      joined.push({ email: body.email as string, entryId: r.body.data.entryId, referralCode: r.body.data.referralCode });
    }
    browser = await launchChromium();
    ctx = await signedInContext(browser, admin, srv.url, { viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
    page = await watchedPage(ctx, problems);
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    if (srv) cleanup(srv);
  });

  it('Entries: filters by status, sorts by queue position, and opens an entry with its details', async () => {
    // One invited entry (the second to join), so the filter has two statuses to tell apart.
    expect((await admin.post(`/api/project/${p.projectId}/invites`, { entryIds: [joined[1]!.entryId] })).status).toBe(200);
    await page.goto(`${srv.url}/#/projects/${p.projectId}/entries`);
    const rows = page.locator('table.entries tbody tr');
    await expect.poll(() => rows.count()).toBe(5);
    const requests: string[] = [];
    page.on('request', (r) => r.url().includes('/waitlist?') && requests.push(r.url()));

    await page.getByLabel('Status', { exact: true }).selectOption('invited');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(joined[1]!.email);
    expect(requests.at(-1)).toContain('status=invited');

    await page.getByLabel('Status', { exact: true }).selectOption('waiting');
    await page.getByLabel('Sort').selectOption('position');
    await expect.poll(() => requests.at(-1) ?? '').toContain('sort=position');
    await expect.poll(() => rows.count()).toBe(4);
    // The referrer (joined first, one referral) leads; the queue order is by position.
    const positions = await page.locator('table.entries tbody td[data-label="Position"]').allTextContents();
    expect(positions).toEqual(['1', '2', '3', '4']);
    expect(await rows.first().textContent()).toContain(joined[0]!.email);

    await page.getByLabel('Status', { exact: true }).selectOption('accepted');
    await page.getByText('No accepted entries.').waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.getByLabel('Sort').selectOption('newest');
    await expect.poll(() => rows.count()).toBe(5);

    // The detail of the referred entry (keyboard: focus the link, Enter).
    const referred = joined[4]!;
    await page.getByRole('link', { name: `Details of ${referred.email}` }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: referred.email, level: 2 }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(referred.email);
    expect(page.url()).toContain(`/entries/${referred.entryId}`);
    const details = await page.locator('dl.detail').first().textContent();
    expect(details).toContain('waiting');
    expect(details).toContain(referred.referralCode);
    expect(details).toContain('Person 4');
    // Referred by: a link to the referrer's detail, named by email.
    await page.getByRole('link', { name: joined[0]!.email }).click();
    await page.getByRole('heading', { name: joined[0]!.email, level: 2 }).waitFor();
    expect(await page.locator('dl.detail').first().textContent()).toMatch(/Referrals1/);
    // Back to the list keeps the filters the list had.
    await page.getByRole('link', { name: '← Back to entries' }).click();
    await expect.poll(() => rows.count()).toBe(5);

    // Even when the detail page was reloaded in between (the view is kept in this tab's sessionStorage).
    await page.getByLabel('Status', { exact: true }).selectOption('waiting');
    await page.getByLabel('Sort').selectOption('position');
    await expect.poll(() => rows.count()).toBe(4);
    await page.getByRole('link', { name: `Details of ${joined[0]!.email}` }).click();
    await page.getByRole('heading', { name: joined[0]!.email, level: 2 }).waitFor();
    await page.reload();
    await page.getByRole('link', { name: '← Back to entries' }).click();
    await expect.poll(() => rows.count()).toBe(4);
    expect(await page.getByLabel('Status', { exact: true }).inputValue()).toBe('waiting');
    expect(await page.getByLabel('Sort').inputValue()).toBe('position');
    expect(requests.at(-1)).toContain('status=waiting');
    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.getByLabel('Sort').selectOption('newest');
    await expect.poll(() => rows.count()).toBe(5);
  });

  it('Entry detail: edits metadata (checked before sending, server issues in words) and invites this one entry', async () => {
    const who = joined[2]!;
    await page.goto(`${srv.url}/#/projects/${p.projectId}/entries/${who.entryId}`);
    const box = page.getByLabel('Metadata (a JSON object)');
    await box.waitFor();
    expect(JSON.parse(await box.inputValue())).toEqual({ n: 2 });
    const puts: unknown[] = [];
    page.on('request', (r) => r.method() === 'PUT' && r.url().includes('/waitlist/') && puts.push(r.postDataJSON()));

    await box.fill('{"plan": "pro",}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByText('Metadata is not valid JSON').waitFor();
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    await box.fill('["pro"]');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByText('Metadata must be a JSON object such as {"plan": "pro"}, not an array.').waitFor();
    // 1e400 would reach the server as null: refused here.
    await box.fill('{"big": 1e400}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByText('metadata.big is a number too large to store').waitFor();
    // A whole number with more digits than a number keeps would be stored rounded: refused, with the fix.
    await box.fill('{"id": 123456789012345678901234567890, "ok": 9007199254740991}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByText('123456789012345678901234567890 has more digits than a number keeps').waitFor();
    expect(await page.getByText('write it as a string, "123456789012345678901234567890"').count()).toBe(1);
    expect(puts).toEqual([]);
    // A 400 from the server is shown with its issues in words (answered here once: the form checks what
    // the server checks, so no real request gets that far).
    await page.route('**/waitlist/*', (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({
            status: 400,
            contentType: 'application/json',
            body: JSON.stringify({
              status: 'error',
              message: 'Validation failed',
              error: { code: 'validation_failed', issues: [{ path: 'metadata', message: 'Metadata must nest at most 5 levels' }] },
            }),
          })
        : route.fallback(),
    );
    await box.fill('{"a": 1}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByText('Validation failed: metadata: Metadata must nest at most 5 levels').waitFor();
    await page.unroute('**/waitlist/*');
    await box.fill('{"plan": "pro", "seats": 3}');
    await page.getByRole('button', { name: 'Save metadata' }).click();
    await page.getByText('Metadata saved.').waitFor();
    expect(puts.at(-1)).toEqual({ metadata: { plan: 'pro', seats: 3 } });
    expect((await admin.get(`/api/project/${p.projectId}/waitlist/${who.entryId}`)).body.data.metadata).toEqual({ plan: 'pro', seats: 3 });

    // Invite this entry: the code is shown once, and it is a valid code.
    const posts: unknown[] = [];
    page.on('request', (r) => r.method() === 'POST' && r.url().endsWith('/invites') && posts.push(r.postDataJSON()));
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const code = await page.getByLabel('Invite code', { exact: true }).inputValue();
    expect(posts).toEqual([{ entryIds: [who.entryId] }]);
    await page.getByText('this is the only time it is shown').waitFor();
    const secretKey = (await admin.post(`/api/project/${p.projectId}/apikey`, { name: 'srv', kind: 'secret' })).body.data.key;
    const check = await fetch(`${srv.url}/v1/waitlist/${p.slug}/invites/${code}`, { headers: { authorization: `Bearer ${secretKey}` } });
    expect(check.status).toBe(200);
    expect(await page.locator('dl.detail').first().textContent()).toContain('invited');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.content()).not.toContain(code);
    await page.getByRole('button', { name: 'Invite again (new code)' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('Email tab: welcome email and notices save only what changed; without SMTP the 409 is shown in words', async () => {
    await page.goto(`${srv.url}/#/projects/${p.projectId}/emails`);
    await page.getByRole('heading', { name: 'Email settings' }).waitFor();
    await page.getByText('The dashboard cannot ask the server whether it has SMTP').waitFor();
    const bodies: Record<string, unknown>[] = [];
    page.on('request', (r) => r.url().endsWith('/settings') && r.method() === 'PUT' && bodies.push(r.postDataJSON()));
    // Changed elsewhere after the page loaded: not reverted by this form.
    expect(
      (await admin.put(`/api/project/${p.projectId}/settings`, { pageTitle: 'Elsewhere', notifyEmails: ['ops@example.com'] })).status,
    ).toBe(200);

    await page.getByRole('button', { name: 'Save email settings' }).click();
    await page.getByText('Nothing changed: nothing to save.').waitFor();
    await page.getByRole('checkbox', { name: /Send a welcome email/ }).check();
    await page.getByRole('button', { name: 'Save email settings' }).click();
    await page.getByText('welcomeEmail needs email, and this server has no SMTP').waitFor();
    await page.getByText('This server has no SMTP: it refused an email setting').waitFor();
    expect(bodies).toEqual([{ welcomeEmail: true }]);
    await page.getByRole('checkbox', { name: /Send a welcome email/ }).uncheck();
    await page.getByLabel('Notices of new sign-ups').selectOption('hourly');
    await page.getByRole('button', { name: 'Save email settings' }).click();
    await page.getByText('notify needs email').waitFor();

    // Addresses: a bad one is named by its place (counted from 1), a good list is saved alone.
    await page.getByLabel('Notices of new sign-ups').selectOption('off');
    await page.getByLabel('Send notices to (one address a line, up to 20)').fill('founder@example.com\nnot-an-address');
    await page.getByRole('button', { name: 'Save email settings' }).click();
    await page.getByText('notifyEmails #2').waitFor();
    await page.getByLabel('Send notices to (one address a line, up to 20)').fill('founder@example.com\nsales@example.com');
    await page.getByRole('button', { name: 'Save email settings' }).click();
    await page.getByText('Email settings saved.').waitFor();
    expect(bodies.at(-1)).toEqual({ notifyEmails: ['founder@example.com', 'sales@example.com'] });
    const after = (await admin.get(`/api/project/${p.projectId}/settings`)).body.data;
    expect(after).toMatchObject({
      welcomeEmail: false,
      notify: 'off',
      pageTitle: 'Elsewhere',
      notifyEmails: ['founder@example.com', 'sales@example.com'],
    });
  });

  it('Sign-up page tab: join protection (allowed origins, disposable addresses, honeypot) saves only what changed', async () => {
    await page.goto(`${srv.url}/#/projects/${p.projectId}/signup`);
    await page.getByRole('heading', { name: 'Join protection' }).waitFor();
    const bodies: Record<string, unknown>[] = [];
    page.on('request', (r) => r.url().endsWith('/settings') && r.method() === 'PUT' && bodies.push(r.postDataJSON()));
    expect((await admin.put(`/api/project/${p.projectId}/settings`, { captcha: 'pow' })).status).toBe(200);
    const origins = page.getByLabel(/Sites allowed to send joins/);
    await origins.fill('https://example.com/some/path\nftp://x');
    await page.getByRole('button', { name: 'Save join protection' }).click();
    await expect.poll(() => page.locator('.error').first().textContent()).toMatch(/allowedOrigins #\d/);
    await origins.fill('https://example.com\nhttp://localhost:3000');
    await page.getByLabel('Honeypot field name (empty: none)').fill('email');
    await page.getByRole('button', { name: 'Save join protection' }).click();
    await expect.poll(() => page.locator('.error').first().textContent()).toContain('honeypotField');
    await page.getByLabel('Honeypot field name (empty: none)').fill('website');
    // Keyboard: Space toggles the checkbox, Enter in a field submits the form.
    await page.getByRole('checkbox', { name: 'Refuse throwaway (disposable) email addresses' }).focus();
    await page.keyboard.press('Space');
    await page.getByLabel('Honeypot field name (empty: none)').press('Enter');
    await page.getByText('Join protection saved.').waitFor();
    expect(bodies.at(-1)).toEqual({
      allowedOrigins: ['https://example.com', 'http://localhost:3000'],
      blockDisposableEmails: true,
      honeypotField: 'website',
    });
    const after = (await admin.get(`/api/project/${p.projectId}/settings`)).body.data;
    expect(after).toMatchObject({ captcha: 'pow', blockDisposableEmails: true, honeypotField: 'website' });
    // Taking the honeypot out again sends null.
    await page.getByLabel('Honeypot field name (empty: none)').fill('');
    await page.getByRole('button', { name: 'Save join protection' }).click();
    await expect.poll(() => bodies.at(-1)).toEqual({ honeypotField: null });
    expect(problems).toEqual([]);
  });

  it('Stats: entries by status and how many came through a referral', async () => {
    const api = (await admin.get(`/api/project/${p.projectId}/stats`)).body.data;
    expect(api.byStatus).toEqual({ pending: 0, waiting: 3, invited: 2, accepted: 0 });
    await page.goto(`${srv.url}/#/projects/${p.projectId}/stats`);
    await page.getByRole('heading', { name: 'By status' }).waitFor();
    for (const [status, n] of Object.entries(api.byStatus)) {
      expect(await page.locator(`li[data-status="${status}"]`).textContent()).toBe(`${n} ${status}`);
    }
    expect(await page.locator('#stats-referred').textContent()).toBe('1 of 5 came through a referral (20 %).');
  });

  it('pages the webhook delivery log and the email log; with SMTP the Email tab says the server sends email', async () => {
    const mail = await startMailReceiver();
    const rx = await startHookReceiver();
    const smtp = await startServer({
      args: ['--allow-private-webhooks', '--smtp-url', `smtp://127.0.0.1:${mail.port}`, '--mail-from', 'T <t@example.com>'],
    });
    const c2 = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
    try {
      const owner = await signedUp(smtp.url, 'paging@example.com', password);
      const q = await projectWithKey(owner, 'Paging');
      const hook = await owner.post(`/api/project/${q.projectId}/webhooks`, { url: rx.url, events: ['entry.invited'] });
      expect(hook.status).toBe(201);
      rx.setSecret(hook.body.data.secret);
      for (let i = 0; i < 21; i++)
        expect((await owner.post(`/api/project/${q.projectId}/webhooks/${hook.body.data.webhookId}/test`)).status).toBe(200);
      expect((await owner.put(`/api/project/${q.projectId}/settings`, { welcomeEmail: true })).status).toBe(200);
      for (let i = 0; i < 21; i++) expect((await postJoin(smtp.url, q.slug, q.key, { email: uniqueEmail(`m${i}`) })).status).toBe(201);
      await waitFor(async () => {
        const log = (await owner.get(`/api/project/${q.projectId}/emails?limit=100`)).body.data;
        return log.total === 21 && log.items.every((m: { status: string }) => m.status === 'delivered');
      }, 30_000);

      const [name, value] = owner.cookie.split('=') as [string, string];
      await c2.addCookies([{ name, value, url: smtp.url }]);
      const pg = await c2.newPage();
      pg.setDefaultTimeout(10_000);
      await pg.goto(`${smtp.url}/#/projects/${q.projectId}/webhooks`);
      await pg.getByRole('button', { name: 'Deliveries' }).click();
      const deliveries = pg.getByRole('navigation', { name: `Delivery pages of ${rx.url}` });
      await deliveries.getByText('21 deliveries · page 1 of 2').waitFor();
      expect(await pg.locator('.deliveries tbody tr').count()).toBe(20);
      await deliveries.getByRole('button', { name: 'Next' }).click();
      await deliveries.getByText('page 2 of 2').waitFor();
      await expect.poll(() => pg.locator('.deliveries tbody tr').count()).toBe(1);
      // A ping goes back to the first page, where it is listed first.
      await pg.getByRole('button', { name: 'Send test ping' }).click();
      await deliveries.getByText('22 deliveries · page 1 of 2').waitFor();

      await pg.goto(`${smtp.url}/#/projects/${q.projectId}/emails`);
      const emails = pg.getByRole('navigation', { name: 'Email log pages' });
      await emails.getByText('21 emails · page 1 of 2').waitFor();
      await emails.getByRole('button', { name: 'Next' }).focus();
      await pg.keyboard.press('Enter');
      await emails.getByText('page 2 of 2').waitFor();
      await expect.poll(() => pg.getByRole('table', { name: 'Emails' }).locator('tbody tr').count()).toBe(1);
      await emails.getByRole('button', { name: 'Previous' }).click();
      await emails.getByText('page 1 of 2').waitFor();
      await pg.getByText('This server sends email: the email log below has delivered emails.').waitFor();
    } finally {
      await c2.close();
      await smtp.stop();
      cleanup(smtp);
      await rx.close();
      await mail.close();
    }
  });

  it('at 375 px the tab bar shows it scrolls and keeps the current tab in view, and delivery cards fit', async () => {
    const rx = await startHookReceiver();
    const phone = await signedInContext(browser, admin, srv.url, {
      viewport: { width: 375, height: 800 },
      locale: 'en-GB',
      timezoneId: 'UTC',
    });
    try {
      const hook = await admin.post(`/api/project/${p.projectId}/webhooks`, { url: rx.url });
      rx.setSecret(hook.body.data.secret);
      expect((await admin.post(`/api/project/${p.projectId}/webhooks/${hook.body.data.webhookId}/test`)).status).toBe(200);
      const pg = await phone.newPage();
      pg.setDefaultTimeout(10_000);
      await pg.goto(`${srv.url}/#/projects/${p.projectId}/webhooks`);
      await pg.getByRole('button', { name: 'Deliveries' }).click();
      await pg.locator('.deliveries tbody tr').first().waitFor();
      const tabs = await pg.evaluate(() => {
        const bar = document.querySelector('.tabs');
        const cur = bar.querySelector('[aria-current="page"]').getBoundingClientRect();
        const box = bar.getBoundingClientRect();
        return {
          scrolls: bar.scrollWidth > bar.clientWidth,
          shadows: getComputedStyle(bar).backgroundImage.split('gradient').length - 1,
          currentInView: cur.left >= box.left - 1 && cur.right <= box.right + 1,
        };
      });
      expect(tabs).toEqual({ scrolls: true, shadows: 4, currentInView: true });
      // Every cell of the delivery cards fits inside its card; the page does not scroll sideways.
      const overflow = await pg.evaluate(() =>
        [...document.querySelectorAll('.deliveries tr')]
          .filter((tr: any) => {
            const r = tr.getBoundingClientRect();
            return [...tr.querySelectorAll('td, td *')].some((el: any) => el.getBoundingClientRect().right > r.right + 1);
          })
          .map((tr: any) => tr.textContent),
      );
      expect(overflow).toEqual([]);
      expect(await pg.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    } finally {
      await phone.close();
      await rx.close();
    }
  });

  it('a deep link opened while signed out is where logging in lands', async () => {
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const pg = await fresh.newPage();
      pg.setDefaultTimeout(10_000);
      await pg.goto(`${srv.url}/#/projects/${p.projectId}/stats`);
      await pg.getByRole('heading', { name: 'Log in', level: 1 }).waitFor();
      await pg.getByLabel('Email').fill(email);
      await pg.getByLabel('Password').fill(password);
      await pg.getByLabel('Password').press('Enter');
      await pg.getByRole('heading', { name: 'Stats', level: 2 }).waitFor();
      expect(new URL(pg.url()).hash).toBe(`#/projects/${p.projectId}/stats`);
    } finally {
      await fresh.close();
    }
  });
});
