import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, signedInContext } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { cleanup, projectWithKey, ROOT, signedUp, startServer, type Client, type TestServer } from '../helpers/server.js';

describe.skipIf(!HAVE_CHROMIUM)('dashboard sign-up tab', () => {
  let srv: TestServer;
  let owner: Client;
  let browser: Browser;
  let P: Awaited<ReturnType<typeof projectWithKey>>;

  beforeAll(async () => {
    srv = await startServer();
    owner = await signedUp(srv.url);
    P = await projectWithKey(owner, 'Tab Project');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv.stop();
    cleanup(srv);
  });

  it('edits the page with a live preview, saves fields, shows the snippet, imports a file', async () => {
    const ctx = await signedInContext(browser, owner, srv.url);
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    await page.goto(`${srv.url}/#/projects/${P.projectId}/signup`);
    await page.getByLabel('Title').fill('Early access');
    await expect.poll(() => page.locator('.preview h3').textContent()).toBe('Early access');
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByLabel('Key').fill('role');
    await page.getByLabel('Label').fill('Your role');
    await page.getByLabel('Type').selectOption('select');
    await page.getByLabel('Options (comma-separated)').fill('dev, pm');
    await expect.poll(() => page.locator('.preview').textContent()).toContain('Your role');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('.notice').first().textContent()).toBe('Saved');
    const s = ok(await owner.get(`/api/project/${P.projectId}/settings`));
    expect(s).toMatchObject({
      pageTitle: 'Early access',
      fields: [{ key: 'role', label: 'Your role', type: 'select', required: false, options: ['dev', 'pm'] }],
    });
    expect(await page.getByRole('textbox', { name: 'Widget (one script tag)' }).inputValue()).toContain(
      `/widget.js" data-slug="${P.slug}"`,
    );

    await page.locator('input[type=file]').setInputFiles(join(ROOT, 'test/fixtures/import/getwaitlist-style.csv'));
    await page.getByLabel('Dry run (check only, write nothing)').uncheck();
    await page.getByRole('button', { name: 'Import' }).click();
    await expect
      .poll(() => page.locator('[role=status]').filter({ hasText: 'Imported' }).textContent(), { timeout: 15_000 })
      .toContain('Imported 37');
    expect(await page.locator('.import-errors').textContent()).toContain('Line 11: Invalid email');
    expect(ok(await owner.get(`/api/project/${P.projectId}/waitlist?limit=1`)).total).toBe(37);
    expect(problems).toEqual([]);
    await ctx.close();
  });
});
