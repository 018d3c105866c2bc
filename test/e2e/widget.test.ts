import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { cleanup, projectWithKey, signedUp, startServer, type Client, type TestServer } from '../helpers/server.js';

// Browser-side globals used inside page.evaluate callbacks (the tests type-check without lib.dom).
declare const window: { Waitlist: { join(input: unknown): Promise<any> }; innerWidth: number };
declare const document: { activeElement: { id: string } | null; documentElement: { scrollWidth: number } };
declare function getComputedStyle(el: unknown): {
  backgroundColor: string;
  fontFamily: string;
  fontSize: string;
  paddingTop: string;
  fontWeight: string;
};

const HOSTILE = `<style>
*{font-family:"Comic Sans MS",cursive!important;color:#f0f!important;background:#ff0!important;border:5px dashed red!important}
input,button,select,label,form{display:none!important;visibility:hidden!important}
div{padding:40px!important}p{font-size:60px!important}
html{font-size:62.5%!important}*{font-size:40px!important}
</style>`;

describe.skipIf(!HAVE_CHROMIUM)('widget in Chromium, embedded on another origin', () => {
  let srv: TestServer;
  let owner: Client;
  let site: Server;
  let siteUrl = '';
  let browser: Browser;
  let P: Awaited<ReturnType<typeof projectWithKey>>;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    srv = await startServer();
    owner = await signedUp(srv.url);
    P = await projectWithKey(owner, 'Widget Site');
    ok(
      await owner.put(`/api/project/${P.projectId}/settings`, {
        captcha: 'pow',
        captchaDifficulty: 20000,
        fields: [
          { key: 'role', label: 'Role', type: 'select', required: true, options: ['dev', 'pm'] },
          { key: 'beta', label: 'Beta tester', type: 'checkbox' },
        ],
      }),
    );
    // The server listens on 127.0.0.1; the site is reached as localhost: a different origin.
    site = createServer((req, res) => {
      const body = pages.get((req.url ?? '/').split('?')[0]!);
      res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body ?? 'not found');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
    const tag = (extra = '') => `<script src="${srv.url}/widget.js" data-slug="${P.slug}" data-key="${P.key}" ${extra} async></script>`;
    pages.set('/', `<!doctype html><html><head>${HOSTILE}</head><body><h1>My startup</h1>${tag()}<p>footer</p></body></html>`);
    pages.set('/custom', `<!doctype html><html><head>${tag('data-form="false"')}</head><body><p>own form</p></body></html>`);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    site?.close();
    await srv.stop();
    cleanup(srv);
  });

  it('is served small: ≤ 8 KB gzipped, cacheable, from any origin', async () => {
    const r = await fetch(`${srv.url}/widget.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('content-type')).toContain('javascript');
    const raw = await fetch(`${srv.url}/widget.js`, { headers: { 'accept-encoding': 'identity' } });
    const text = await raw.text();
    expect(text).toContain('Waitlist');
    expect(text).not.toMatch(/https?:\/\/(?!www\.w3)/); // loads nothing from elsewhere
    const { request } = await import('node:http');
    const gz = await new Promise<Buffer>((resolve) => {
      request(`${srv.url}/widget.js`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      }).end();
    });
    expect(gz.length).toBeLessThanOrEqual(8 * 1024);
    expect(gunzipSync(gz).toString()).toBe(text);
  });

  it('renders isolated from hostile CSS, shows field errors, solves the challenge and joins', async () => {
    const ctx = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${siteUrl}/?ref=friend123`);
    const email = page.locator('[data-waitlist] input[type=email]');
    await email.waitFor({ state: 'visible' });
    const button = page.locator('[data-waitlist] button');
    // The host page's `button{display:none!important;background:#ff0!important}` does not reach it.
    expect(await button.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(59, 91, 219)');
    expect(await button.evaluate((b) => getComputedStyle(b).fontFamily)).not.toContain('Comic');
    // Nor do the page's root font size (`html{font-size:62.5%}`) and `*{font-size:40px!important}`.
    expect(await email.evaluate((i) => getComputedStyle(i).fontSize)).toBe('15.2px');
    expect(await email.evaluate((i) => getComputedStyle(i).paddingTop)).toBe('8.8px');
    expect(
      await page
        .locator('[data-waitlist] label')
        .first()
        .evaluate((l) => getComputedStyle(l).fontSize),
    ).toBe('15.2px');
    await expect.poll(() => button.isVisible()).toBe(true);
    // Its own light card, so its dark text reads on a dark site too; typed text is not bold; Email is marked required.
    expect(
      await page
        .locator('[data-waitlist] .r')
        .first()
        .evaluate((d) => getComputedStyle(d).backgroundColor),
    ).toBe('rgb(255, 255, 255)');
    expect(await email.evaluate((i) => getComputedStyle(i).fontWeight)).toBe('400');
    expect(await page.locator('[data-waitlist] label').first().textContent()).toBe('Email *');

    // A bad email and a missing required field: the API's issues land on their fields.
    await email.fill('not-an-email');
    await button.click();
    const emailErr = page.locator('[data-waitlist] #w1-email-e');
    await expect.poll(() => emailErr.textContent(), { timeout: 15_000 }).toBe('Invalid email address');
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('[data-waitlist] [role=status]').first().textContent()).toBe('Please check the highlighted fields.');

    await email.fill('widget1@example.com');
    await page.locator('[data-waitlist] select').selectOption('pm');
    await page.locator('[data-waitlist] input[type=checkbox]').check();
    await button.click();
    await expect.poll(() => page.locator('[data-waitlist] .ok').textContent(), { timeout: 20_000 }).toContain('You are on the list!');
    const list = ok(await owner.get(`/api/project/${P.projectId}/waitlist?search=widget1`));
    expect(list.items[0]).toMatchObject({ email: 'widget1@example.com', source: 'widget', fields: { role: 'pm', beta: true } });
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it('window.Waitlist.join serves a custom form (captcha solved on demand); errors carry code and issues', async () => {
    const page = await browser.newPage();
    await page.goto(`${siteUrl}/custom`);
    await page.waitForFunction(() => 'Waitlist' in window);
    const res = await page.evaluate(() =>
      window.Waitlist.join({ email: 'custom1@example.com', fields: { role: 'dev' }, metadata: { from: 'own form' } }),
    );
    expect(res).toMatchObject({ email: 'custom1@example.com' });
    const err = await page.evaluate(() =>
      window.Waitlist.join({ email: 'custom1@example.com', fields: { role: 'dev' } }).catch((e: any) => ({
        code: e.code,
        issues: e.issues,
      })),
    );
    expect(err).toEqual({ code: 'email_taken', issues: [] });
    const bad = await page.evaluate(() =>
      window.Waitlist.join({ email: 'x@example.com', fields: { role: 'ceo' } }).catch((e: any) => ({
        code: e.code,
        paths: e.issues.map((i: any) => i.path),
      })),
    );
    expect(bad).toEqual({ code: 'validation_failed', paths: ['fields.role'] });
    expect(await page.locator('[data-waitlist]').count()).toBe(0); // data-form="false": nothing rendered
    await page.close();
  });

  it('the hosted page: with JavaScript the captcha is solved unnoticed; without it the form still posts', async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
    await page.goto(`${srv.url}/w/${P.slug}`);
    await page.getByLabel('Email').fill('hosted-js@example.com');
    await page.getByLabel('Role').selectOption('dev');
    await page.getByRole('button', { name: 'Join the waitlist' }).click();
    await page.waitForSelector('#result', { timeout: 20_000 });
    expect(await page.locator('#result').textContent()).toContain('hosted-js@example.com');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('result');
    // No horizontal scrolling at phone width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.close();

    const noJs = await browser.newContext({ javaScriptEnabled: false });
    const p2 = await noJs.newPage();
    ok(await owner.put(`/api/project/${P.projectId}/settings`, { captcha: 'off' }));
    await p2.goto(`${srv.url}/w/${P.slug}`);
    await p2.getByLabel('Email').fill('hosted-nojs@example.com');
    await p2.getByLabel('Role').selectOption('pm');
    await p2.getByRole('button', { name: 'Join the waitlist' }).click();
    await p2.waitForSelector('#result');
    expect(await p2.locator('#result').textContent()).toContain('You are on the list!');
    await noJs.close();
  });
});
