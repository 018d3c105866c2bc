// Chromium for the browser tests: playwright-core drives the machine's own chromium (none is downloaded);
// the tests that need it are skipped when it is missing (CHROMIUM_PATH points elsewhere).
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import type { Client } from './server.js';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/**
 * Headless Chromium on a fresh temporary profile (its own --user-data-dir, removed on close): no sandbox
 * (tests may run as root), no GPU, no QUIC, and nothing that calls home (first run, background
 * networking, component updates, sync).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 60_000,
  });
}

/** A browser context signed in as `client` on the server at `url` (its session cookie). */
export async function signedInContext(
  browser: Browser,
  client: Client,
  url: string,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const ctx = await browser.newContext(options);
  const [name, value] = client.cookie.split('=') as [string, string];
  await ctx.addCookies([{ name, value, url }]);
  return ctx;
}

/**
 * A new page of `ctx` (10 s default timeout) whose page errors and console errors go into `problems`,
 * 4xx responses the page expects aside (the dashboard shows those in words).
 */
export async function watchedPage(ctx: BrowserContext, problems: string[]): Promise<Page> {
  const page = await ctx.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && !/status of 4\d\d/.test(m.text()) && problems.push(`console: ${m.text()}`));
  return page;
}
