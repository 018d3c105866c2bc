// The Webhooks tab's event choice, editing and secret rotation (dashboard audit finding 8), in a real
// headless Chromium (Debian's /usr/bin/chromium via playwright-core) against a real `waitlist serve` on a
// temporary SQLite. Each action is checked through the API afterwards; a rotated secret is checked by a
// test ping to a receiver that verifies signatures with the `standardwebhooks` package.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, signedInContext } from '../helpers/browser.js';
import { startHookReceiver, type HookReceiver } from '../helpers/receivers.js';
import { type Client, cleanup, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

const ALL = ['entry.created', 'entry.confirmed', 'entry.invited', 'entry.accepted', 'entry.deleted'];

describe.skipIf(!HAVE_CHROMIUM)('Webhooks tab: events, editing and secret rotation in Chromium', () => {
  let srv: TestServer;
  /** A server without --allow-private-webhooks, where a private URL is refused. */
  let strict: TestServer;
  let rx: HookReceiver;
  let browser: Browser;
  let page: Page;
  let strictPage: Page;
  let admin: Client;
  let strictAdmin: Client;
  let projectId = '';
  let strictProjectId = '';
  let webhookId = '';
  let firstSecret = '';
  const problems: string[] = [];
  /** Bodies of the PATCH and rotate-secret requests the page sent. */
  const sent: { method: string; path: string; body: unknown }[] = [];

  const hooks = async (c: Client, pid: string) => (await c.get(`/api/project/${pid}/webhooks`)).body.data.items as any[];
  const watch = (p: Page) => {
    p.setDefaultTimeout(10_000);
    p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    p.on('console', (m) => m.type() === 'error' && !/status of 4\d\d/.test(m.text()) && problems.push(`console: ${m.text()}`));
    p.on('request', (r) => {
      if (r.method() === 'PATCH' || r.url().endsWith('/rotate-secret')) {
        sent.push({ method: r.method(), path: new URL(r.url()).pathname, body: JSON.parse(r.postData() ?? 'null') });
      }
    });
  };

  beforeAll(async () => {
    rx = await startHookReceiver();
    [srv, strict] = await Promise.all([startServer({ args: ['--allow-private-webhooks'] }), startServer()]);
    admin = await signedUp(srv.url, 'hooks@example.com', 'a long password');
    strictAdmin = await signedUp(strict.url, 'strict@example.com', 'a long password');
    projectId = (await projectWithKey(admin, 'Hooks')).projectId;
    strictProjectId = (await projectWithKey(strictAdmin, 'Strict')).projectId;
    browser = await launchChromium();
    const opts = { viewport: { width: 1280, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' };
    page = await (await signedInContext(browser, admin, srv.url, opts)).newPage();
    strictPage = await (await signedInContext(browser, strictAdmin, strict.url, opts)).newPage();
    watch(page);
    watch(strictPage);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([srv?.stop(), strict?.stop(), rx?.close()]);
    if (srv) cleanup(srv);
    if (strict) cleanup(strict);
  });

  it('creates a webhook for the events chosen (all by default); none chosen is refused in words', async () => {
    await page.goto(`${srv.url}/#/projects/${projectId}/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    const choice = page.getByRole('group', { name: 'Events to send' });
    for (const t of ALL) expect(await choice.getByRole('checkbox', { name: t }).isChecked()).toBe(true);
    await page.getByLabel('Endpoint URL').fill(rx.url);
    for (const t of ALL) await choice.getByRole('checkbox', { name: t }).uncheck();
    await choice.getByText('Choose at least one event').waitFor();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('Choose at least one event');
    expect(await hooks(admin, projectId)).toEqual([]);

    // With the keyboard: Space on a focused checkbox.
    await choice.getByRole('checkbox', { name: 'entry.created' }).focus();
    await page.keyboard.press('Space');
    await choice.getByRole('checkbox', { name: 'entry.deleted' }).focus();
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    firstSecret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(firstSecret).toMatch(/^whsec_/);
    const [w] = await hooks(admin, projectId);
    expect(w.url).toBe(rx.url);
    expect(w.events).toEqual(['entry.created', 'entry.deleted']);
    webhookId = w.webhookId;
    await page.getByRole('button', { name: 'I have saved it' }).click();
    // The form is back to all events for the next one.
    for (const t of ALL) expect(await choice.getByRole('checkbox', { name: t }).isChecked()).toBe(true);
    await page.getByText(/^entry\.created, entry\.deleted · created/).waitFor();
  });

  it("edits a webhook's URL and events, sending only what changed", async () => {
    const edit = page.getByRole('button', { name: `Edit webhook ${rx.url}` });
    await edit.click();
    const form = page.getByRole('form', { name: `Edit webhook ${rx.url}` });
    const urlField = form.getByLabel('URL of this webhook');
    await expect.poll(() => urlField.evaluate((el) => el === (el.ownerDocument as any).activeElement)).toBe(true);
    expect(await urlField.inputValue()).toBe(rx.url);
    const events = form.getByRole('group', { name: 'Events sent to it' });
    expect(await events.getByRole('checkbox', { name: 'entry.deleted' }).isChecked()).toBe(true);
    expect(await events.getByRole('checkbox', { name: 'entry.invited' }).isChecked()).toBe(false);

    // Nothing changed: nothing is sent.
    await form.getByRole('button', { name: 'Save webhook' }).click();
    expect(await form.getByRole('alert').textContent()).toContain('Nothing to save');
    expect(sent).toEqual([]);

    await events.getByRole('checkbox', { name: 'entry.deleted' }).uncheck();
    await events.getByRole('checkbox', { name: 'entry.invited' }).check();
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByText('Webhook saved (events changed).').waitFor();
    expect(sent).toEqual([
      { method: 'PATCH', path: `/api/project/${projectId}/webhooks/${webhookId}`, body: { events: ['entry.created', 'entry.invited'] } },
    ]);
    expect((await hooks(admin, projectId))[0].events).toEqual(['entry.created', 'entry.invited']);
    // Focus is back on the Edit button.
    await expect.poll(() => edit.evaluate((el) => el === (el.ownerDocument as any).activeElement)).toBe(true);

    const newUrl = `${rx.url}?v=2`;
    await edit.click();
    await form.getByLabel('URL of this webhook').fill(newUrl);
    await form.getByLabel('URL of this webhook').press('Enter');
    await page.getByText('Webhook saved (url changed).').waitFor();
    expect(sent[1]!.body).toEqual({ url: newUrl });
    const [w] = await hooks(admin, projectId);
    expect(w.url).toBe(newUrl);
    expect(w.events).toEqual(['entry.created', 'entry.invited']);

    // Escape cancels without sending anything.
    await page.getByRole('button', { name: `Edit webhook ${newUrl}` }).click();
    const field = page.getByRole('form', { name: `Edit webhook ${newUrl}` }).getByLabel('URL of this webhook');
    await expect.poll(() => field.evaluate((el) => el === (el.ownerDocument as any).activeElement)).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('form', { name: `Edit webhook ${newUrl}` }).count()).toBe(0);
    expect(sent).toHaveLength(2);
  });

  it('says in words why a private URL is refused (a server without --allow-private-webhooks)', async () => {
    const created = await strictAdmin.post(`/api/project/${strictProjectId}/webhooks`, { url: 'https://1.1.1.1/hook' });
    expect(created.status).toBe(201);
    await strictPage.goto(`${strict.url}/#/projects/${strictProjectId}/webhooks`);
    await strictPage.getByRole('button', { name: 'Edit webhook https://1.1.1.1/hook' }).click();
    const form = strictPage.getByRole('form', { name: 'Edit webhook https://1.1.1.1/hook' });
    await form.getByLabel('URL of this webhook').fill('http://10.0.0.5/hook');
    await form.getByRole('button', { name: 'Save webhook' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/url: .*10\.0\.0\.5.*private/);
    // The form stays open with what was typed; the server kept the old URL.
    expect(await form.getByLabel('URL of this webhook').inputValue()).toBe('http://10.0.0.5/hook');
    expect((await hooks(strictAdmin, strictProjectId))[0].url).toBe('https://1.1.1.1/hook');
  });

  it('rotates the secret: asks how long the old one signs, shows the new one once, and pings verify with it', async () => {
    const url = `${rx.url}?v=2`;
    const rotate = page.getByRole('button', { name: `Rotate the secret of webhook ${url}` });
    const dialog = page.getByRole('dialog', { name: "Rotate this webhook's secret?" });
    const ping = (expected: string) => page.getByText(expected).waitFor();

    // Cancel sends nothing.
    await rotate.click();
    await dialog.waitFor(); // open (modal) once shown
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(sent.filter((s) => s.path.endsWith('/rotate-secret'))).toEqual([]);

    // The default: the old secret keeps signing for a day.
    await rotate.click();
    expect(await dialog.getByRole('radio', { name: '1 day (default)' }).isChecked()).toBe(true);
    const before = Date.now();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const card = page.getByRole('region', { name: 'Secret rotated' });
    const second = await card.getByRole('textbox', { name: 'New signing secret' }).inputValue();
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(firstSecret);
    await card.getByRole('button', { name: 'Copy New signing secret' }).waitFor();
    const until = Date.parse((await card.locator('time').getAttribute('datetime'))!);
    expect(until).toBeGreaterThanOrEqual(before + 86_400_000 - 5_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 86_400_000 + 5_000);
    expect(sent.at(-1)!.body).toEqual({ keepPreviousFor: 86_400 });

    // Both secrets sign for now: the receiver accepts a ping with either.
    rx.setSecret(second);
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await ping('Ping delivered (HTTP 200).');
    rx.setSecret(firstSecret);
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await expect.poll(() => rx.received.length).toBe(2);
    expect(rx.badSignatures).toBe(0);
    await card.getByRole('button', { name: 'I have saved it' }).click();
    await expect.poll(() => card.count()).toBe(0);

    // "Drop it now", chosen with the keyboard: only the newest secret signs.
    await rotate.click();
    await dialog.getByRole('radio', { name: '1 day (default)' }).focus();
    await page.keyboard.press('ArrowUp'); // wraps round to the last choice
    expect(await dialog.getByRole('radio', { name: /^Drop it now/ }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const third = await card.getByRole('textbox', { name: 'New signing secret' }).inputValue();
    expect([firstSecret, second]).not.toContain(third);
    await card.getByText('The old secret no longer signs').waitFor();
    expect(await card.locator('time').count()).toBe(0);
    expect(sent.at(-1)!.body).toEqual({ keepPreviousFor: 0 });

    rx.setSecret(third);
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await expect.poll(() => rx.received.length).toBe(3);
    rx.setSecret(second);
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await ping('Ping not delivered: HTTP 400.');
    expect(rx.badSignatures).toBe(1);

    // The server has the webhook as it was (URL, events) and never shows the secret again.
    const w = (await admin.get(`/api/project/${projectId}/webhooks/${webhookId}`)).body.data;
    expect(w).toMatchObject({ url, events: ['entry.created', 'entry.invited'], enabled: true });
    expect(w.secret).toBeUndefined();
    await page.reload();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    expect(await page.content()).not.toContain(third);
    expect(problems).toEqual([]);
  });
});
