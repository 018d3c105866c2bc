import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, signedInContext } from '../helpers/browser.js';
import { cleanup, postJoin, projectWithKey, signedUp, startServer, uniqueEmail, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let browser: Browser;

beforeAll(async () => {
  srv = await startServer();
  if (HAVE_CHROMIUM) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await srv.stop();
  cleanup(srv);
});

it.skipIf(!HAVE_CHROMIUM)('Queue tab: positions, invite preview then invite, leaderboard, settings', async () => {
  const admin = await signedUp(srv.url);
  const p = await projectWithKey(admin, 'Queue Test');
  const first = (await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail('q1'), name: 'First' })).body.data;
  for (let i = 0; i < 3; i++) await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail('q'), ref: first.referralCode });
  const ctx = await signedInContext(browser, admin, srv.url, { viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${srv.url}/#/projects/${p.projectId}/queue`);
  const rows = page.locator('table.queue tbody tr');
  await expect.poll(() => rows.count()).toBe(4);
  expect(await rows.first().locator('td').first().textContent()).toBe('1');
  await expect.poll(() => page.locator('ol.leaderboard li').first().textContent()).toContain('First — 3 referrals');
  await page.getByLabel('How many (1–10,000)').fill('2');
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect.poll(() => page.locator('ol.preview li').count()).toBe(2);
  expect(await admin.get(`/api/project/${p.projectId}/waitlist?status=invited`).then((r) => r.body.data.total)).toBe(0);
  await page.getByRole('button', { name: 'Invite 2' }).click();
  await expect.poll(() => page.locator('.notice').first().textContent()).toContain('Invited 2');
  await expect.poll(() => rows.count()).toBe(2);
  expect(await admin.get(`/api/project/${p.projectId}/waitlist?status=invited`).then((r) => r.body.data.total)).toBe(2);
  await page.getByLabel('Places a referral moves the referrer up (0–1000)').fill('7');
  await page.getByRole('button', { name: 'Save launch settings' }).click();
  await expect.poll(() => admin.get(`/api/project/${p.projectId}/settings`).then((r) => r.body.data.referralBoost)).toBe(7);
  expect(errors).toEqual([]);
  await ctx.close();
});
