// Dashboard fixes from the dashboard audit (/work/notes/audit-dashboard.md), in a real headless Chromium
// (Debian's /usr/bin/chromium via playwright-core) against a real `waitlist serve` on a temporary SQLite:
// secret keys stay out of the public snippets, invite codes are shown once, the invite confirm sends the
// previewed ids, launch settings send only what changed, session expiry on every tab, the email preview.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, signedInContext, watchedPage } from '../helpers/browser.js';
import { startHookReceiver, type HookReceiver } from '../helpers/receivers.js';
import { Client, cleanup, postJoin, projectWithKey, signedUp, startServer, uniqueEmail, type TestServer } from '../helpers/server.js';

// page.evaluate callbacks run in the browser (the test files compile without lib.dom).
declare const document: any;
declare const getComputedStyle: any;

describe.skipIf(!HAVE_CHROMIUM)('dashboard fixes in Chromium', () => {
  let srv: TestServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let admin: Client;
  let rx: HookReceiver;
  const email = 'fixes@example.com';
  const password = 'a long password';
  let p: Awaited<ReturnType<typeof projectWithKey>>;
  const problems: string[] = [];
  const widget = () => page.getByRole('textbox', { name: 'Widget (one script tag)' });
  const tab = (name: string) => page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name });

  beforeAll(async () => {
    rx = await startHookReceiver();
    srv = await startServer({ args: ['--allow-private-webhooks'] });
    admin = await signedUp(srv.url, email, password);
    p = await projectWithKey(admin, 'Fixes');
    browser = await launchChromium();
    ctx = await signedInContext(browser, admin, srv.url, { viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
    page = await watchedPage(ctx, problems);
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await rx?.close();
    if (srv) cleanup(srv);
  });

  it('an unknown tab in the address shows the entries, and the address is corrected to say so', async () => {
    await page.goto(`${srv.url}/#/projects/${p.projectId}/no-such-tab`);
    await page.waitForFunction((want: string) => (globalThis as any).location.hash === want, `#/projects/${p.projectId}/entries`);
    expect(await tab('Entries').getAttribute('aria-current')).toBe('page');
  });

  it('never puts a secret key into the Install or Sign-up page snippets, and says why', async () => {
    await page.goto(`${srv.url}/#/projects/${p.projectId}/keys`);
    await page.getByLabel('New key name').fill('server');
    await page.getByLabel('Kind').selectOption('secret');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByLabel('Full API key', { exact: true }).inputValue();
    expect(secret).toMatch(/^wl_sk_/);
    await page.getByRole('button', { name: 'I have saved it' }).click();

    await tab('Install').click();
    const fetchSnippet = await page.getByLabel('fetch snippet', { exact: true }).inputValue();
    expect(fetchSnippet).toContain('wl_YOUR_PUBLISHABLE_KEY');
    expect(await page.content()).not.toContain(secret);
    await page.getByText('The key you just created is a secret key').waitFor();
    await tab('Sign-up page').click();
    await widget().waitFor();
    expect(await widget().inputValue()).toContain('data-key="wl_YOUR_PUBLISHABLE_KEY"');
    expect(await page.content()).not.toContain(secret);

    // A publishable key goes in; a secret one created after it does not replace it.
    await tab('API keys').click();
    await page.getByLabel('New key name').fill('landing');
    await page.getByRole('button', { name: 'Create key' }).click();
    const publishable = await page.getByLabel('Full API key', { exact: true }).inputValue();
    expect(publishable).toMatch(/^wl_pk_/);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByLabel('New key name').fill('server 2');
    await page.getByLabel('Kind').selectOption('secret');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret2 = await page.getByLabel('Full API key', { exact: true }).inputValue();
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await tab('Install').click();
    expect(await page.getByLabel('curl command', { exact: true }).inputValue()).toContain(publishable);
    expect(await page.content()).not.toContain(secret2);
    await page.getByText('so the snippets use your latest publishable key instead').waitFor();
    await tab('Sign-up page').click();
    await widget().waitFor();
    expect(await widget().inputValue()).toContain(`data-key="${publishable}"`);
    expect(await page.content()).not.toContain(secret2);
  });

  it('invites exactly the previewed people and shows their codes once, with copy', async () => {
    const emails: string[] = [];
    for (let i = 0; i < 4; i++) {
      emails.push(uniqueEmail(`inv${i}`));
      expect((await postJoin(srv.url, p.slug, p.key, { email: emails[i] })).status).toBe(201);
    }
    await page.goto(`${srv.url}/#/projects/${p.projectId}/queue`);
    await expect.poll(() => page.locator('table.queue tbody tr').count()).toBe(4);
    await page.getByLabel('How many (1–10,000)').fill('2');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('ol.preview li').count()).toBe(2);
    // Meanwhile someone else invites the next waiting entry (the first previewed one).
    const elsewhere = await admin.post(`/api/project/${p.projectId}/invites`, { count: 1 });
    expect(elsewhere.body.data.invited.map((e: { email: string }) => e.email)).toEqual([emails[0]]);
    const sent: unknown[] = [];
    page.on('request', (r) => r.url().endsWith('/invites') && r.method() === 'POST' && sent.push(r.postDataJSON()));
    await page.getByRole('button', { name: 'Invite 2' }).click();
    const codes = page.locator('table.invite-codes tbody tr');
    await expect.poll(() => codes.count()).toBe(2);
    // The previewed ids were sent, not "the next 2": the third person (never previewed) is still waiting.
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ entryIds: expect.any(Array) });
    expect((sent[0] as { count?: number }).count).toBeUndefined();
    const invited = await admin.get(`/api/project/${p.projectId}/waitlist?status=invited`);
    expect(invited.body.data.items.map((e: { email: string }) => e.email).sort()).toEqual([emails[0], emails[1]].sort());
    // Each shown code works (checked with the project's secret-key route).
    const texts = await codes.allTextContents();
    expect(texts.join('\n')).toContain(emails[1]);
    const csv = await page.getByRole('textbox', { name: 'Invite codes (CSV)' }).inputValue();
    const rows = csv.split('\n');
    expect(rows[0]).toBe('email,inviteCode,expiresAt');
    expect(rows).toHaveLength(3);
    const secretKey = (await admin.post(`/api/project/${p.projectId}/apikey`, { name: 'srv', kind: 'secret' })).body.data.key;
    for (const row of rows.slice(1)) {
      const [who, code] = row.split(',');
      const check = await fetch(`${srv.url}/v1/waitlist/${p.slug}/invites/${code}`, { headers: { authorization: `Bearer ${secretKey}` } });
      expect(check.status).toBe(200);
      expect(((await check.json()) as { data: { email: string } }).data.email).toBe(who);
    }
    expect(await page.getByText('this is the only time they are shown').count()).toBe(1);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await expect.poll(() => codes.count()).toBe(0);
    expect(await page.content()).not.toContain(rows[1]!.split(',')[1]);
  });

  it('Save launch settings sends only the fields changed on the form', async () => {
    await page.goto(`${srv.url}/#/projects/${p.projectId}/queue`);
    await page.getByLabel('Invite codes valid for (days, 1–365)').waitFor();
    // Changed elsewhere after the page loaded: a field of this form and fields of other tabs.
    const other = await admin.put(`/api/project/${p.projectId}/settings`, {
      pageTitle: 'Changed elsewhere',
      captcha: 'off',
      inviteTtlDays: 30,
    });
    expect(other.status).toBe(200);
    const bodies: Record<string, unknown>[] = [];
    page.on('request', (r) => r.url().endsWith('/settings') && r.method() === 'PUT' && bodies.push(r.postDataJSON()));
    await page.getByRole('button', { name: 'Save launch settings' }).click();
    await page.getByText('Nothing changed: nothing to save.').waitFor();
    await page.getByLabel('Places a referral moves the referrer up (0–1000)').fill('9');
    await page.getByRole('button', { name: 'Save launch settings' }).click();
    await page.getByText('Launch settings saved.').waitFor();
    expect(bodies).toEqual([{ referralBoost: 9 }]);
    const after = (await admin.get(`/api/project/${p.projectId}/settings`)).body.data;
    expect(after).toMatchObject({ referralBoost: 9, pageTitle: 'Changed elsewhere', captcha: 'off', inviteTtlDays: 30 });
  });

  it('a dead session sends every tab back to Log in, logs out locally, and leaves no stale error', async () => {
    // Ends every session of the user, from another client (as "log out everywhere" or an expiry would).
    const killSessions = async () => {
      const other = new Client(srv.url);
      expect((await other.post('/api/auth/login', { email, password })).status).toBe(200);
      expect((await other.post('/api/auth/logout-all')).status).toBe(200);
    };
    const loginHeading = page.getByRole('heading', { name: 'Log in', level: 1 });
    const logIn = async () => {
      await loginHeading.waitFor();
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      expect(await page.locator('.error').count()).toBe(0);
    };
    const cases: [string, string, () => Promise<void>][] = [
      ['queue', 'Preview', () => page.getByRole('button', { name: 'Preview' }).click()],
      ['signup', 'Save', () => page.getByRole('button', { name: 'Save', exact: true }).click()],
      [
        'webhooks',
        'Add webhook',
        async () => {
          await page.getByLabel('Endpoint URL').fill('https://example.com/hook');
          await page.getByRole('button', { name: 'Add webhook' }).click();
        },
      ],
      ['emails', 'Preview', () => page.getByRole('button', { name: 'Preview' }).click()],
    ];
    for (const [path, button, act] of cases) {
      await page.goto(`${srv.url}/#/projects/${p.projectId}/${path}`);
      await page.getByRole('button', { name: button, exact: true }).first().waitFor();
      await killSessions();
      await act();
      await loginHeading.waitFor();
      expect(await page.getByText('Log in first').count(), path).toBe(0);
      await logIn();
    }

    // Log out with a dead session: logged out here too, with no error, and none after logging in again.
    await killSessions();
    await page.getByRole('button', { name: 'Log out' }).click();
    await loginHeading.waitFor();
    expect(await page.locator('header').textContent()).not.toContain(email);
    expect(await page.locator('.error').count()).toBe(0);
    await logIn();
  });

  it('previews an HTML email with its inline styles and <style> block, with no CSP errors', async () => {
    problems.length = 0;
    await page.goto(`${srv.url}/#/projects/${p.projectId}/emails`);
    await page.getByRole('heading', { name: 'Email', exact: true }).waitFor();
    await page
      .getByLabel('HTML')
      .fill(
        '<p id="x" style="color: rgb(255, 0, 0)">Styled {{name}}</p><style>p { background: rgb(255, 255, 0) }</style><img src="https://example.com/logo.png">',
      );
    await page.getByRole('button', { name: 'Preview' }).click();
    const frameEl = page.locator('iframe.email-preview');
    await frameEl.waitFor();
    expect(await frameEl.getAttribute('sandbox')).toBe('allow-same-origin');
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await expect
      .poll(() =>
        frame.evaluate(() => {
          const el = document.getElementById('x');
          const cs = el && getComputedStyle(el);
          return cs ? `${el.textContent} ${cs.color} ${cs.backgroundColor}` : '';
        }),
      )
      .toBe('Styled Ada rgb(255, 0, 0) rgb(255, 255, 0)');
    await page.getByText('1 remote image is not loaded in the preview').waitFor();
    // Scripts never run in the preview.
    await page
      .getByLabel('HTML')
      .fill('<p id="y">a</p><img src="x" onerror="document.body.dataset.ran=1"><script>document.body.dataset.ran=1</script>');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect
      .poll(() =>
        page
          .frames()
          .find((f) => f !== page.mainFrame())!
          .evaluate(() => document.getElementById('y')?.textContent ?? ''),
      )
      .toBe('a');
    expect(
      await page
        .frames()
        .find((f) => f !== page.mainFrame())!
        .evaluate(() => document.body.dataset.ran ?? 'no'),
    ).toBe('no');
    expect(problems).toEqual([]);
  });

  it('small fixes: delivery log after a ping, checkbox size, focus after revoke and delete, field paths, unsaved template edits', async () => {
    // The earlier test ended every session of the user: the API client logs in again.
    expect((await admin.post('/api/auth/login', { email, password })).status).toBe(200);
    // The open delivery log shows the test ping at once.
    const hook = await admin.post(`/api/project/${p.projectId}/webhooks`, { url: rx.url });
    expect(hook.status).toBe(201);
    rx.setSecret(hook.body.data.secret);
    await page.goto(`${srv.url}/#/projects/${p.projectId}/webhooks`);
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.getByText('No deliveries yet.').waitFor();
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await page.getByText('Ping delivered').waitFor();
    await page.locator('tr[data-status="delivered"]', { hasText: 'ping' }).waitFor();

    // Checkboxes keep their size, the label beside them.
    await page.goto(`${srv.url}/#/projects/${p.projectId}/queue`);
    const box = await page.getByRole('checkbox', { name: 'Double opt-in (needs SMTP)' }).boundingBox();
    expect(box!.width).toBeLessThan(40);

    // After confirming a revoke (its row is gone), focus is on the list's heading, not on <body>.
    await page.goto(`${srv.url}/#/projects/${p.projectId}/keys`);
    await page.getByRole('button', { name: 'Revoke key test key' }).click();
    await page.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('API keys');
    await page.goto(`${srv.url}/#/projects/${p.projectId}/entries`);
    await page.locator('table.entries tbody tr').first().waitFor();
    await page
      .getByRole('button', { name: /^Delete / })
      .first()
      .click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /Delete/ })
      .click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Entries');

    // A field problem names the field counted from 1.
    await page.goto(`${srv.url}/#/projects/${p.projectId}/signup`);
    for (let i = 0; i < 2; i++) {
      await page.getByRole('button', { name: 'Add a field' }).click();
      await page.getByRole('textbox', { name: 'Key' }).nth(i).fill('plan');
      await page.getByRole('textbox', { name: 'Label' }).nth(i).fill('Plan');
    }
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const error = await page.locator('.error').first().textContent();
    expect(error).toContain('fields #2 key');
    expect(error).not.toContain('fields.1');

    // Switching email templates keeps unsaved edits, and says so.
    await page.goto(`${srv.url}/#/projects/${p.projectId}/emails`);
    await page.getByLabel('Subject').fill('UNSAVED subject');
    await page.getByLabel('Template').selectOption('invite');
    expect(await page.getByLabel('Subject').inputValue()).not.toBe('UNSAVED subject');
    expect(await page.getByRole('option', { name: /welcome/ }).textContent()).toContain('(unsaved edits)');
    await page.getByLabel('Template').selectOption('welcome');
    expect(await page.getByLabel('Subject').inputValue()).toBe('UNSAVED subject');
    await page.getByRole('button', { name: 'Discard edits' }).click();
    expect(await page.getByLabel('Subject').inputValue()).not.toBe('UNSAVED subject');
  });

  it('long names without spaces wrap: no sideways scroll on the projects and entries pages, desktop or phone', async () => {
    const long = await projectWithKey(admin, 'L'.repeat(100));
    const joined = await postJoin(srv.url, long.slug, long.key, {
      email: uniqueEmail('long'),
      name: 'N'.repeat(200),
      source: 'S'.repeat(100),
    });
    expect(joined.status).toBe(201);
    await admin.post(`/api/project/${long.projectId}/apikey`, { name: 'K'.repeat(100) });
    const wide = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto(`${srv.url}/#/projects`);
      await page.getByRole('link', { name: 'L'.repeat(100) }).waitFor();
      expect(await wide(), `projects at ${viewport.width}`).toBeLessThanOrEqual(0);
      await page.goto(`${srv.url}/#/projects/${long.projectId}/entries`);
      await page.getByText('N'.repeat(200)).waitFor();
      const culprits = await page.evaluate(() =>
        [...document.querySelectorAll('*')]
          .filter((el: any) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
          .slice(0, 8)
          .map((el: any) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`),
      );
      expect(await wide(), `entries at ${viewport.width}: ${culprits.join(', ')}`).toBeLessThanOrEqual(0);
      await page.goto(`${srv.url}/#/projects/${long.projectId}/keys`);
      await page.getByText('K'.repeat(100)).waitFor();
      expect(await wide(), `keys at ${viewport.width}`).toBeLessThanOrEqual(0);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the Log in page offers sign-up only when the server takes new accounts', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in', level: 1 }).waitFor();
    await page.getByText('sign-up is closed here').waitFor();
    expect(await page.getByRole('link', { name: /Create/ }).count()).toBe(0);
    // An error on Log in does not follow to the sign-up form.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('.error').waitFor();
    await page.goto(`${srv.url}/#/signup`);
    await page.getByRole('button', { name: 'Create account' }).waitFor();
    expect(await page.locator('.error').allTextContents()).toEqual([]);
  });
});
