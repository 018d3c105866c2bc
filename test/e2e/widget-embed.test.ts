// The widget on real host pages in Chromium: a strict CSP, a blocking script in <head>, an origin the
// project does not allow, one join request per sign-up on a captcha project, and what a screen reader
// hears for a field with an error. The landing pages are served from another origin than the server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { HAVE_CHROMIUM, launchChromium } from '../helpers/browser.js';
import { cleanup, projectWithKey, signedUp, startServer, type Client, type TestServer } from '../helpers/server.js';

// Browser-side globals used inside page.evaluate callbacks (the tests type-check without lib.dom).
declare const window: { Waitlist: { join(input: unknown): Promise<any> } };
declare function getComputedStyle(el: unknown): { backgroundColor: string; fontSize: string };

describe.skipIf(!HAVE_CHROMIUM)('widget on real host pages (Chromium, another origin)', () => {
  let srv: TestServer;
  let owner: Client;
  let site: Server;
  let siteUrl = '';
  let browser: Browser;
  let CAP: Awaited<ReturnType<typeof projectWithKey>>; // captcha pow, a required select
  let LOCKED: Awaited<ReturnType<typeof projectWithKey>>; // allowedOrigins leaves the site out
  const pages = new Map<string, { body: string; headers?: Record<string, string> }>();
  const tag = (p: { slug: string; key: string }, extra = '') =>
    `<script src="${srv.url}/widget.js" data-slug="${p.slug}" data-key="${p.key}" ${extra}></script>`;

  beforeAll(async () => {
    srv = await startServer();
    owner = await signedUp(srv.url);
    CAP = await projectWithKey(owner, 'Embed Captcha');
    ok(
      await owner.put(`/api/project/${CAP.projectId}/settings`, {
        captcha: 'pow',
        captchaDifficulty: 5000,
        fields: [
          { key: 'role', label: 'Role', type: 'select', required: true, options: ['dev', 'pm'] },
          { key: 'agree', label: 'I agree', type: 'checkbox', required: true },
          { key: 'team', label: 'Team size', type: 'number' },
        ],
      }),
    );
    LOCKED = await projectWithKey(owner, 'Embed Locked');
    ok(await owner.put(`/api/project/${LOCKED.projectId}/settings`, { allowedOrigins: ['https://elsewhere.example'] }));

    site = createServer((req, res) => {
      const page = pages.get((req.url ?? '/').split('?')[0]!);
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8', ...page?.headers });
      res.end(page?.body ?? 'not found');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    // The server listens on 127.0.0.1; the site is reached as localhost: a different origin.
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;

    const strict = `default-src 'self'; script-src ${srv.url}; connect-src ${srv.url}; style-src 'self'`;
    const doc = (head: string, body: string) => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
    pages.set('/csp', { body: doc('', `<h1>Strict</h1>${tag(CAP, 'async')}`), headers: { 'content-security-policy': strict } });
    pages.set('/csp-worker', {
      body: doc('', `<h1>Strict, blob workers allowed</h1>${tag(CAP, 'async')}`),
      headers: { 'content-security-policy': `${strict}; worker-src blob:` },
    });
    pages.set('/head', { body: doc(tag(CAP), '<h1>Script in head, no async</h1><p>footer</p>') });
    pages.set('/head-target', {
      body: doc(tag(CAP, 'data-target="#signup"'), '<h1>Target</h1><section id="signup"></section><p>footer</p>'),
    });
    pages.set('/locked', { body: doc('', `<h1>Not allowed</h1>${tag(LOCKED, 'async')}`) });
    pages.set('/custom', { body: doc(tag(CAP, 'data-form="false"'), '<p>own form</p>') });
    pages.set('/form', { body: doc('', tag(CAP, 'async')) });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    site?.close();
    await srv.stop();
    cleanup(srv);
  });

  /** A page with its console messages, page errors and join requests recorded. */
  async function open(path: string) {
    const page = await browser.newPage();
    const log = { console: [] as { type: string; text: string }[], errors: [] as string[], joins: 0 };
    page.on('console', (m) => log.console.push({ type: m.type(), text: m.text() }));
    page.on('pageerror', (e) => log.errors.push(e.message));
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/join')) log.joins++;
    });
    await page.goto(`${siteUrl}${path}`);
    return { page, log };
  }

  async function fillAndJoin(page: Page, email: string) {
    await page.locator('[data-waitlist] input[type=email]').fill(email);
    await page.locator('[data-waitlist] select').selectOption('dev');
    await page.locator('[data-waitlist] input[type=checkbox]').check();
    await page.locator('[data-waitlist] button').click();
    await expect.poll(() => page.locator('[data-waitlist] .ok').textContent(), { timeout: 20_000 }).toContain('You are on the list!');
  }

  it('under a strict CSP (style-src self, no blob workers) the form is styled and joins', async () => {
    const { page, log } = await open('/csp');
    const button = page.locator('[data-waitlist] button');
    await button.waitFor({ state: 'visible' });
    expect(await button.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(59, 91, 219)');
    expect(await page.locator('[data-waitlist] input[type=email]').evaluate((i) => getComputedStyle(i).fontSize)).toBe('15.2px');
    // The CSS is an adopted constructable stylesheet, not a <style> element the CSP would block.
    expect(
      await page
        .locator('[data-waitlist]')
        .evaluate((h: any) => [h.shadowRoot.adoptedStyleSheets.length, h.shadowRoot.querySelectorAll('style').length]),
    ).toEqual([1, 0]);
    await fillAndJoin(page, 'csp1@example.com');
    // The only refusal is the blob worker (the proof of work then runs on the page): nothing about styles.
    const csp = log.console.filter((m) => /Content Security Policy/i.test(m.text));
    expect(csp.filter((m) => /style/i.test(m.text))).toEqual([]);
    expect(log.errors).toEqual([]);
    expect(log.joins).toBe(1);
    await page.close();
  });

  it('with the documented CSP (worker-src blob: added) nothing at all is refused', async () => {
    const { page, log } = await open('/csp-worker');
    await page.locator('[data-waitlist] button').waitFor({ state: 'visible' });
    await fillAndJoin(page, 'csp2@example.com');
    expect(log.console.filter((m) => /Content Security Policy/i.test(m.text))).toEqual([]);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('a blocking <script> in <head> (no async/defer) renders once the DOM is ready, also into a later data-target', async () => {
    const a = await open('/head');
    await a.page.locator('[data-waitlist] input[type=email]').waitFor({ state: 'visible' });
    expect(await a.page.evaluate(() => (globalThis as any).document.body.firstElementChild.getAttribute('data-waitlist'))).toBe(CAP.slug);
    await fillAndJoin(a.page, 'head1@example.com');
    expect(a.log.errors).toEqual([]);
    await a.page.close();

    const b = await open('/head-target');
    await b.page.locator('#signup input[type=email]').waitFor({ state: 'visible' });
    expect(await b.page.locator('[data-waitlist]').count()).toBe(1);
    expect(await b.page.locator('#signup').getAttribute('data-waitlist')).toBe(CAP.slug);
    expect(b.log.errors).toEqual([]);
    await b.page.close();
  });

  it('on an origin the project does not allow: a message that covers it, and a console warning naming allowedOrigins', async () => {
    const { page, log } = await open('/locked');
    const alert = page.locator('[data-waitlist] [role=alert]');
    await expect.poll(() => alert.textContent()).toContain('may not be allowed');
    expect(await alert.textContent()).toContain('Check your connection');
    const warning = log.console.find((m) => m.type === 'warning' && m.text.includes('allowedOrigins'));
    expect(warning?.text).toContain(siteUrl);
    expect(log.errors).toEqual([]);
    await page.close();
  });

  it('a sign-up on a captcha project sends exactly one join request (Waitlist.join and the form)', async () => {
    const { page, log } = await open('/custom');
    await page.waitForFunction(() => 'Waitlist' in window);
    for (const email of ['once1@example.com', 'once2@example.com']) {
      const r = await page.evaluate((e) => window.Waitlist.join({ email: e, fields: { role: 'pm', agree: true } }), email);
      expect(r).toMatchObject({ email });
    }
    expect(log.joins).toBe(2);
    // A refused join (not the captcha) is still one request, and its error reaches the caller.
    const bad = await page.evaluate(() =>
      window.Waitlist.join({ email: 'once3@example.com', fields: { role: 'ceo', agree: true } }).catch((e: any) => e.code),
    );
    expect(bad).toBe('validation_failed');
    expect(log.joins).toBe(3);
    await page.close();

    const f = await open('/form');
    await f.page.locator('[data-waitlist] button').waitFor({ state: 'visible' });
    await fillAndJoin(f.page, 'once4@example.com');
    expect(f.log.joins).toBe(1);
    await f.page.close();
  });

  it('a field with an error: the error is its description only, and the required * is not in its name', async () => {
    const { page } = await open('/form');
    await page.locator('[data-waitlist] button').waitFor({ state: 'visible' });
    await page.locator('[data-waitlist] input[type=email]').fill('not-an-email');
    await page.locator('[data-waitlist] button').click();
    const select = page.locator('[data-waitlist] select');
    await expect.poll(() => select.getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    const snap = await page.locator('[data-waitlist] form').ariaSnapshot();
    expect(snap).toContain('textbox "Email"');
    expect(snap).toContain('combobox "Role"');
    expect(snap).toContain('checkbox "I agree"');
    expect(snap).toContain('spinbutton "Team size"');
    // No error text and no * in any control's name.
    const names = [...snap.matchAll(/(?:textbox|combobox|checkbox|spinbutton) "([^"]*)"/g)].map((m) => m[1]);
    expect(names).toEqual(['Email', 'Name', 'Role', 'I agree', 'Team size']);
    // Each error is referenced by aria-describedby and sits outside every <label>.
    const described = await page.locator('[data-waitlist] form').evaluate((form: any) =>
      [...form.querySelectorAll('input,select')].map((c: any) => {
        const err = form.querySelector(`#${CSS.escape(c.getAttribute('aria-describedby'))}`);
        return { invalid: c.getAttribute('aria-invalid'), inLabel: Boolean(err.closest('label')), text: err.textContent };
      }),
    );
    expect(described).toHaveLength(5);
    expect(described.every((d) => !d.inLabel)).toBe(true);
    expect(described[0]).toEqual({ invalid: 'true', inLabel: false, text: 'Invalid email address' });
    expect(described[2]!.invalid).toBe('true');
    expect(described[2]!.text).toMatch(/Role/);
    // Accessible names and descriptions as Chromium computes them.
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: any[] };
    const email = nodes.find((n) => n.role?.value === 'textbox' && n.name?.value?.startsWith('Email'));
    expect(email.name.value).toBe('Email');
    expect(email.description?.value).toBe('Invalid email address');
    const role = nodes.find((n) => n.role?.value === 'combobox');
    expect(role.name.value).toBe('Role');
    expect(role.description?.value).toMatch(/Role/);
    await page.close();
  });
});

declare const CSS: { escape(s: string): string };
