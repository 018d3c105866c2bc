import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, signedInContext, watchedPage } from '../helpers/browser.js';
import { startHookReceiver, type HookReceiver } from '../helpers/receivers.js';
import { cleanup, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

describe.skipIf(!HAVE_CHROMIUM)('Webhooks and Email tabs in Chromium', () => {
  let srv: TestServer;
  let rx: HookReceiver;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  const problems: string[] = [];

  beforeAll(async () => {
    rx = await startHookReceiver();
    srv = await startServer({ args: ['--allow-private-webhooks'] });
    const c = await signedUp(srv.url, 'dash-events@example.com', 'a long password');
    projectId = (await projectWithKey(c, 'Event Dash')).projectId;
    browser = await launchChromium();
    const ctx = await signedInContext(browser, c, srv.url, { viewport: { width: 1280, height: 800 } });
    page = await watchedPage(ctx, problems);
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await rx?.close();
    if (srv) cleanup(srv);
  });

  it('creates a webhook, shows the secret once, pings it and retries a delivery', async () => {
    await page.goto(`${srv.url}/#/projects/${projectId}/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByLabel('Endpoint URL').fill(rx.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    rx.setSecret(secret);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await expect.poll(() => page.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Send test ping' }).click();
    await page.getByText('Ping delivered (HTTP 200).').waitFor();
    const row = page.locator('tr[data-status="delivered"]');
    await row.first().waitFor();
    expect(await row.first().textContent()).toContain('ping');
    expect(rx.received.map((m) => m.type)).toEqual(['ping']);
    await page
      .getByRole('button', { name: /^Retry delivery/ })
      .first()
      .click();
    await expect.poll(() => rx.received.length).toBe(2);
    expect(rx.badSignatures).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  it('previews and saves an email template', async () => {
    await page.goto(`${srv.url}/#/projects/${projectId}/emails`);
    await page.getByRole('heading', { name: 'Email', exact: true }).waitFor();
    await page.getByLabel('Subject').fill('Hi {{name}}, welcome to {{projectName}}');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('#preview-subject').textContent()).toBe('Hi Ada, welcome to Event Dash');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Template “welcome” saved.').waitFor();
    await page.getByRole('button', { name: 'Back to default' }).click();
    await page.getByText('Template “welcome” is back to the default.').waitFor();
    expect(problems).toEqual([]);
  });
});
