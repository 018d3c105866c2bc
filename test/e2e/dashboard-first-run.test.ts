// The dashboard in a real headless Chromium (Debian's /usr/bin/chromium via playwright-core) against a
// real `waitlist serve`: a brand-new server opens on "Create the first account"; at 1280 px a long
// email does not squeeze the entries table's "Joined" column (screenshot in test-results/).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { cleanup, postJoin, projectWithKey, ROOT, signedUp, startServer, type TestServer } from '../helpers/server.js';
import { HAVE_CHROMIUM, launchChromium } from '../helpers/browser.js';

const SHOTS = join(ROOT, 'test-results/screenshots');
// page.evaluate callbacks run in the browser: the little of the DOM they read (the test files compile without lib.dom).
declare const document: { createRange(): { selectNodeContents(node: unknown): void; getClientRects(): ArrayLike<{ top: number }> } };
/** Lines of text in an element: its distinct line boxes (runs in the browser). */
const textLines = (el: unknown) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
};

describe.skipIf(!HAVE_CHROMIUM)('dashboard first run and entries layout in Chromium', () => {
  let srv: TestServer;
  let browser: Browser;

  const newPage = async (width = 1280): Promise<Page> => {
    const ctx = await browser.newContext({ viewport: { width, height: 800 }, locale: 'en-GB', timezoneId: 'UTC' });
    const page = await ctx.newPage();
    page.setDefaultTimeout(10_000);
    return page;
  };

  beforeAll(async () => {
    srv = await startServer();
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    if (srv) cleanup(srv);
  });

  it('a brand-new server opens on "Create the first account"; once an account exists, on "Log in"', async () => {
    const fresh = (await fetch(`${srv.url}/auth/status`).then((r) => r.json())) as { data: unknown };
    expect(fresh.data).toEqual({ signupOpen: true, hasUsers: false, signedIn: false });
    const page = await newPage();
    // A signed-out visit asks nothing that fails: no 401 logged in the console.
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(`${srv.url}/`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Create the first account');
    expect(await page.getByRole('button', { name: 'Create account' }).isVisible()).toBe(true);
    await page.context().close();

    await signedUp(srv.url, 'first@example.com', 'a long password');
    const later = await newPage();
    later.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await later.goto(`${srv.url}/`);
    await expect.poll(() => later.getByRole('heading', { level: 1 }).textContent()).toBe('Log in');
    await later.context().close();
    expect(consoleErrors).toEqual([]);
  });

  it('at 1280 px a long email wraps in its own cell and "Joined" stays on one line', async () => {
    const owner = await signedUp(srv.url, 'owner-layout@example.com', 'a long password').catch(async () => {
      // sign-up is closed after the first account: log in as it instead
      const { Client } = await import('../helpers/server.js');
      const c = new Client(srv.url);
      await c.post('/api/auth/login', { email: 'first@example.com', password: 'a long password' });
      return c;
    });
    const P = await projectWithKey(owner, 'Layout');
    const long = `${'a-very-long-local-part-that-keeps-going-and-going'.repeat(2)}@subdomain.of.a.rather.long.example-domain.com`;
    expect((await postJoin(srv.url, P.slug, P.key, { email: long, name: 'Long Email Person', source: 'a-long-source-name' })).status).toBe(
      201,
    );
    expect((await postJoin(srv.url, P.slug, P.key, { email: 'short@example.com', name: 'Short' })).status).toBe(201);

    const page = await newPage(1280);
    await page.context().addCookies([{ name: 'waitlist_session', value: owner.cookie.split('=')[1]!, url: srv.url }]);
    await page.goto(`${srv.url}/#/projects/${P.projectId}/entries`);
    await page.locator('table.entries tbody tr').nth(1).waitFor();
    await page.screenshot({ path: join(SHOTS, 'entries-long-email-1280.png'), fullPage: true });

    // Lines of text in each "Joined" cell: distinct line boxes of its text.
    const joined = page.locator('table.entries td[data-label="Joined"]');
    const lines = [await joined.nth(0).evaluate(textLines), await joined.nth(1).evaluate(textLines)];
    expect(lines).toEqual([1, 1]);
    // the long email wrapped instead (more than one line) and the table did not overflow the page
    const emailLines = await page.locator('table.entries td.email', { hasText: long }).evaluate(textLines);
    expect(emailLines).toBeGreaterThan(1);
    const overflow = await page.locator('.table-wrap').evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});
