// The dashboard in a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
// against a real `waitlist serve`: sign up, project, key shown once, joins over HTTP, search, rename,
// delete, CSV export, stats, revoke (joins then fail), log out. Saves screenshots to docs/screenshots.
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import Database from 'better-sqlite3';
import { cleanup, DIALECT, postJoin, ROOT, startServer, type TestServer } from '../helpers/server.js';
import { CHROMIUM, HAVE_CHROMIUM, launchChromium } from '../helpers/browser.js';

// Debian's package; CHROMIUM_PATH may point elsewhere (never at a downloaded browser build).
if (!HAVE_CHROMIUM) {
  console.warn(`\n  Browser tests SKIPPED: ${CHROMIUM} not found. Install it with: apt-get install -y chromium\n`);
}
// Each run saves its screenshots under test-results/ (ignored by git); WAITLIST_SCREENSHOTS=docs
// refreshes the ones the README shows, in docs/screenshots.
// page.evaluate callbacks run in the browser: the little of the DOM they read (the test files compile without lib.dom).
declare const document: { activeElement: { textContent: string | null } | null; documentElement: { scrollWidth: number } };
const SHOTS = join(ROOT, process.env.WAITLIST_SCREENSHOTS === 'docs' ? 'docs/screenshots' : 'test-results/screenshots');

describe.skipIf(!HAVE_CHROMIUM)('dashboard in Chromium', () => {
  let srv: TestServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const problems: string[] = []; // CSP violations, page errors, failed requests to our own origin
  const email = 'owner@example.com';
  const password = 'a long password';
  let key = '';
  let slug = '';
  let total = 0;

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const tab = (name: string) => page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name });
  const entryRows = () => page.locator('table.entries tbody tr');

  beforeAll(async () => {
    // --trust-proxy so joins can claim public client IPs (X-Forwarded-For) and get a country.
    srv = await startServer({ args: ['--trust-proxy'] });
    // launch() starts Chromium on a fresh temporary profile (its own --user-data-dir) and removes it on close.
    browser = await launchChromium();
    ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true, locale: 'en-GB', timezoneId: 'UTC' });
    page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 40[0-9]/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    mkdirSync(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    if (srv) cleanup(srv);
  });

  it('serves the dashboard with a strict CSP and keeps unknown paths as JSON 404', async () => {
    const res = await page.goto(srv.url + '/');
    expect(res!.status()).toBe(200);
    const csp = res!.headers()['content-security-policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    // A brand-new server has no account: the dashboard opens on sign-up, not on "Log in".
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Create the first account');
    const nf = await fetch(srv.url + '/projects');
    expect(nf.status).toBe(404);
    expect(await nf.json()).toMatchObject({ status: 'error', error: { code: 'not_found' } });
  });

  it('signs up the first user', async () => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await shot('signup');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    expect(await page.locator('header').textContent()).toContain(email);
  });

  it('creates, renames and deletes a project (with confirmation)', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Scratch');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Scratch', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.getByRole('button', { name: 'Rename project Scratch: Scratch' }).click();
    await page.getByRole('textbox', { name: 'Rename project Scratch' }).fill('Scratch pad');
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Scratch pad' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Scratch pad' }).getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Scratch pad”?' });
    // Keyboard: the dialog opens with focus on Cancel, and Escape closes it without deleting.
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await page.getByRole('link', { name: 'Scratch pad' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Scratch pad' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete project' }).click();
    await page.getByText('No projects yet').waitFor();
  });

  it('creates a project with a slug preview', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Rocket Launch');
    expect(await page.locator('#slug-preview').textContent()).toContain('/v1/waitlist/rocket-launch/join');
    await page.getByLabel('Slug (optional)').fill('Bad Slug');
    expect(await page.getByRole('button', { name: 'Create project' }).isDisabled()).toBe(true);
    await page.getByLabel('Slug (optional)').fill('rocket');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Rocket Launch', level: 1 }).waitFor();
    slug = 'rocket';
    expect(page.url()).toMatch(/#\/projects\/prj_[^/]+\/keys$/);
  });

  it('creates a key and shows it exactly once', async () => {
    await page.getByLabel('New key name').fill('landing page');
    await page.getByRole('button', { name: 'Create key' }).click();
    const field = page.getByLabel('Full API key', { exact: true });
    await field.waitFor();
    key = await field.inputValue();
    expect(key).toMatch(/^wl_/);
    expect(await page.getByText('this is the only time the full key is shown').count()).toBe(1);
    await shot('keys');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await page.reload();
    await page.locator('td[data-label="Name"]', { hasText: 'landing page' }).waitFor();
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('td[data-label="Prefix"]').textContent()).toContain(key.slice(0, 8));
  });

  it('lists subscribers who joined over HTTP, finds one, renames and deletes it', async () => {
    const people = [
      ['ada@example.com', 'Ada', 'hero-form', '81.2.69.160'],
      ['grace@example.com', 'Grace', 'footer', '5.9.0.1'],
      ['linus@example.com', undefined, 'hero-form', '8.8.8.8'],
      ['margaret@example.com', 'Margaret', 'twitter', '81.2.69.161'],
      ['alan@example.com', 'Alan', 'hero-form', '8.8.4.4'],
    ] as const;
    for (const [mail, name, source, ip] of people) {
      const r = await postJoin(srv.url, slug, key, { email: mail, name, source }, { 'x-forwarded-for': ip });
      expect(r.status, r.text).toBe(201);
    }
    await tab('Entries').click();
    await expect.poll(() => entryRows().count()).toBe(5);
    await shot('entries');

    await page.getByLabel('Search email or name').fill('GRACE');
    await expect.poll(() => entryRows().count()).toBe(1);
    expect(await entryRows().first().textContent()).toContain('grace@example.com');

    await page.getByRole('button', { name: 'Name of grace@example.com: Grace' }).click();
    await page.getByRole('textbox', { name: 'Name of grace@example.com' }).fill('Grace Hopper');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Name of grace@example.com saved.').waitFor();
    expect(await entryRows().first().textContent()).toContain('Grace Hopper');

    await page.getByRole('button', { name: 'Delete grace@example.com' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete entry' }).click();
    await page.getByText('No entry matches “GRACE”.').waitFor();
    await page.getByLabel('Search email or name').fill('');
    await expect.poll(() => entryRows().count()).toBe(4);
  });

  it('pages through entries with a chosen page size', async () => {
    // The select offers 10/20/50/100; with 4 entries one page: check the pager text and the request.
    await page.getByLabel('Per page').selectOption('10');
    await page.getByText('1–4 of 4 · page 1 of 1').waitFor();
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
  });

  it('exports CSV through the export route', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^rocket-entries-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe(
      '"entryId","email","name","source","metadata","ip","country","userAgent","createdAt","updatedAt","status","position","referralCode","referredBy","referrals","confirmedAt","invitedAt","acceptedAt"',
    ); // every cell quoted (docs/security.md)
    expect(lines).toHaveLength(5);
    expect(csv).toContain('ada@example.com');
    expect(csv).not.toContain('grace@example.com');
  });

  it('is usable at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await tab('Entries').click();
    await expect.poll(() => entryRows().count()).toBe(4);
    // No horizontal scrolling of the page itself.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('entries-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows stats and the install snippets', async () => {
    // A month of history for the chart: joins over HTTP, then (on SQLite) backdated in the database file.
    const joined: [string, number][] = [];
    for (let daysAgo = 28; daysAgo >= 1; daysAgo--) {
      const n = 1 + Math.floor((28 - daysAgo) / 5) + (daysAgo % 3 === 0 ? 1 : 0);
      for (let k = 0; k < n; k++) {
        const r = await postJoin(srv.url, slug, key, {
          email: `d${daysAgo}-${k}@example.com`,
          source: ['hero-form', 'footer', 'newsletter'][k % 3],
        });
        expect(r.status).toBe(201);
        joined.push([r.body.data.entryId, daysAgo]);
      }
    }
    total = 4 + joined.length;
    if (DIALECT === 'sqlite') {
      const db = new Database(srv.dbFile);
      const at = db.prepare('UPDATE entries SET created_at = ?, updated_at = ? WHERE id = ?');
      for (const [id, daysAgo] of joined) {
        const t = Date.now() - daysAgo * 86_400_000;
        at.run(t, t, id);
      }
      db.close();
    }
    await tab('Stats').click();
    await page.getByRole('heading', { name: 'Signups per day, last 30 days' }).waitFor();
    expect(await page.locator('.totals').textContent()).toContain(`${total} total`);
    expect(await page.locator('.chart svg rect.bar').count()).toBe(30);
    expect(await page.getByRole('heading', { name: 'Top sources' }).locator('..').textContent()).toContain('hero-form');
    await shot('stats');

    await tab('Install').click();
    const snippet = await page.getByLabel('fetch snippet', { exact: true }).inputValue();
    expect(snippet).toContain(`${srv.url}/v1/waitlist/rocket/join`);
    const form = await page.getByLabel('HTML form snippet', { exact: true }).inputValue();
    expect(form).toContain('<form id="waitlist-form">');
    await shot('install');

    // The form snippet, pasted into a page on another origin, adds a subscriber (CORS) and shows refusals in words.
    const landing = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Landing</title>${form.replaceAll('wl_YOUR_PUBLISHABLE_KEY', key)}`);
    });
    await new Promise<void>((r) => landing.listen(0, '127.0.0.1', r));
    const other = await ctx.newPage();
    try {
      await other.goto(`http://127.0.0.1:${(landing.address() as AddressInfo).port}/`);
      await other.getByLabel('Email').fill('from-landing@example.com');
      await other.getByLabel('Name').fill('Lan Ding');
      await other.getByRole('button', { name: 'Join the waitlist' }).click();
      await other.getByText("You're on the list!").waitFor();
      await other.getByLabel('Email').fill('from-landing@example.com');
      await other.getByRole('button', { name: 'Join the waitlist' }).click();
      await other
        .getByRole('status')
        .filter({ hasText: /already/i })
        .waitFor();
      // A refused field shows the server's per-field words, not a bare "Validation failed".
      await other.getByLabel('Email').fill('long-name@example.com');
      await other.getByLabel('Name').fill('x'.repeat(201));
      await other.getByRole('button', { name: 'Join the waitlist' }).click();
      await other.getByRole('status').filter({ hasText: 'Name must be at most 200 characters' }).waitFor();
      expect(await other.getByRole('status').textContent()).not.toContain('Validation failed');
    } finally {
      await other.close();
      landing.close();
    }
    await tab('Entries').click();
    await page.getByLabel('Search email or name').fill('from-landing');
    await expect.poll(() => entryRows().count()).toBe(1);
    expect(await entryRows().first().textContent()).toContain('waitlist-form');
  });

  it('pages through many entries', async () => {
    await page.getByLabel('Search email or name').fill('');
    await page.getByLabel('Per page').selectOption('50');
    const pages = Math.ceil((total + 1) / 50); // + the join from the landing page
    await page.getByText(`1–50 of ${total + 1} · page 1 of ${pages}`).waitFor();
    const firstOnPage1 = await entryRows().first().textContent();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText(`51–100 of ${total + 1} · page 2 of ${pages}`).waitFor();
    expect(await entryRows().first().textContent()).not.toBe(firstOnPage1);
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText(`1–50 of ${total + 1} · page 1 of ${pages}`).waitFor();
  });

  it('revokes the key after confirmation; joins with it then fail', async () => {
    expect((await postJoin(srv.url, slug, key, { email: 'before@example.com' })).status).toBe(201);
    await tab('API keys').click();
    await page.getByRole('button', { name: 'Revoke key landing page' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('No keys yet').waitFor();
    const r = await postJoin(srv.url, slug, key, { email: 'after@example.com' });
    expect(r.status).toBe(401);
  });

  it('shows API errors in words and logs out', async () => {
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('Rocket again');
    await page.getByLabel('Slug (optional)').fill('rocket');
    await page.getByRole('button', { name: 'Create project' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('The slug "rocket" is already taken');
    await shot('projects');
    await page.getByLabel('Slug (optional)').fill('');
    await page.getByLabel('Name', { exact: true }).fill('');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in', level: 1 }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/api/auth/me')).status);
    expect(me).toBe(401);

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').waitFor();
    const text = (await page.getByRole('alert').textContent())!;
    expect(text).not.toContain('{');
    expect(text.length).toBeGreaterThan(5);
    await shot('login-error');
  });

  it('raised no CSP violations or script errors', () => {
    expect(problems).toEqual([]);
  });
});
