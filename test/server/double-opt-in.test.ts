// Double opt-in (LIFECYCLE.md): pending on join, confirm by token (API and one-click page), resend on
// re-join, referrals count only once confirmed, queue order = join time, purge of old pending entries.
// The confirmation token only travels by email; until the events layer delivers mail, the test plants
// a known token's hash in the database (the server stores hashes only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, ok } from '../helpers/api.js';
import { dbQuery, sha256 } from '../helpers/lifecycle.js';
import { cleanup, Client, postJoin, projectWithKey, signedUp, startServer, uniqueEmail, type TestServer } from '../helpers/server.js';

let server: TestServer;
let admin: Client;
const SMTP = { WAITLIST_SMTP_URL: 'smtp://127.0.0.1:9' };

beforeAll(async () => {
  server = await startServer({ env: SMTP });
  admin = await signedUp(server.url);
});
afterAll(async () => {
  await server.stop();
  cleanup(server);
});

async function setup() {
  const p = await projectWithKey(admin);
  ok(await admin.put(`/api/project/${p.projectId}/settings`, { doubleOptIn: true, referralBoost: 5 }));
  return p;
}
const join = async (p: { slug: string; key: string }, body: Record<string, unknown> = {}) =>
  ok(await postJoin(server.url, p.slug, p.key, { email: uniqueEmail('dbl'), ...body }), 201);
async function plantToken(entryId: string) {
  const token = `test-token-${entryId}-${Math.random()}`;
  await dbQuery(server, 'UPDATE entries SET confirm_token_hash = ? WHERE id = ?', [sha256(token), entryId]);
  return token;
}
const entry = async (projectId: string, id: string) => ok(await admin.get(`/api/project/${projectId}/waitlist/${id}`));

describe('double opt-in', () => {
  it('join is pending with no position; confirm makes it waiting in join-time order; repeat confirm is 200; unknown 404', async () => {
    const p = await setup();
    const a = await join(p);
    expect(a).toMatchObject({ status: 'pending', position: null });
    const b = await join(p);
    const c = new Client(server.url);
    const tb = await plantToken(b.entryId);
    const vb = ok(await c.post(`/v1/waitlist/${p.slug}/confirm`, { token: tb }));
    expect(vb).toMatchObject({ status: 'waiting', position: 1, total: 1, email: b.email });
    const ta = await plantToken(a.entryId);
    const va = ok(await c.post(`/v1/waitlist/${p.slug}/confirm`, { token: ta }));
    expect(va).toMatchObject({ status: 'waiting', position: 1, total: 2 }); // joined first: ahead of b
    expect((await entry(p.projectId, b.entryId)).position).toBe(2);
    expect((await entry(p.projectId, a.entryId)).confirmedAt).not.toBeNull();
    ok(await c.post(`/v1/waitlist/${p.slug}/confirm`, { token: ta }));
    fails(await c.post(`/v1/waitlist/${p.slug}/confirm`, { token: 'unknown' }), 404, 'not_found');
    fails(await c.post(`/v1/waitlist/${p.slug}/confirm`, {}), 400, 'validation_failed');
    const other = await setup();
    fails(await c.post(`/v1/waitlist/${other.slug}/confirm`, { token: ta }), 404, 'not_found');
    const stats = ok(await admin.get(`/api/project/${p.projectId}/stats`));
    expect(stats.byStatus).toMatchObject({ pending: 0, waiting: 2 });
  });

  it('a pending referral does not count until confirmed; the confirm page asks for one click', async () => {
    const p = await setup();
    const a = await join(p);
    await plantToken(a.entryId).then((t) => new Client(server.url).post(`/v1/waitlist/${p.slug}/confirm`, { token: t }));
    const f = await join(p, { ref: a.referralCode });
    expect((await entry(p.projectId, a.entryId)).referrals).toBe(0);
    const t = await plantToken(f.entryId);
    const c = new Client(server.url);
    const page = await c.get(`/w/${p.slug}/confirm?token=${encodeURIComponent(t)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<form method="post"');
    expect((await entry(p.projectId, f.entryId)).status).toBe('pending'); // a GET changes nothing
    const done = await c.req('POST', `/w/${p.slug}/confirm`, `token=${encodeURIComponent(t)}`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(done.status).toBe(200);
    expect((await entry(p.projectId, f.entryId)).status).toBe('waiting');
    expect((await entry(p.projectId, a.entryId)).referrals).toBe(1);
  });

  it('re-joining while pending answers 409 and resends (the first at once, then at most every 10 minutes)', async () => {
    const p = await setup();
    const email = uniqueEmail('again');
    const a = await join(p, { email });
    const before = await dbQuery<{ confirm_token_hash: string }>(server, 'SELECT confirm_token_hash FROM entries WHERE id = ?', [
      a.entryId,
    ]);
    fails(await postJoin(server.url, p.slug, p.key, { email }), 409, 'email_taken');
    const after1 = await dbQuery<{ confirm_token_hash: string; confirm_resent_at: number }>(
      server,
      'SELECT confirm_token_hash, confirm_resent_at FROM entries WHERE id = ?',
      [a.entryId],
    );
    // The same link again (the token is derived from the entry): the first email's link keeps working.
    expect(after1[0]!.confirm_token_hash).toBe(before[0]!.confirm_token_hash);
    expect(after1[0]!.confirm_resent_at).not.toBeNull();
    fails(await postJoin(server.url, p.slug, p.key, { email }), 409, 'email_taken');
    const after2 = await dbQuery<{ confirm_token_hash: string }>(server, 'SELECT confirm_token_hash FROM entries WHERE id = ?', [
      a.entryId,
    ]);
    expect(after2[0]!.confirm_token_hash).toBe(after1[0]!.confirm_token_hash);
    const resent = await dbQuery<{ confirm_resent_at: number }>(server, 'SELECT confirm_resent_at FROM entries WHERE id = ?', [a.entryId]);
    expect(resent[0]!.confirm_resent_at).toBe(after1[0]!.confirm_resent_at); // throttled: not sent again
    const rows = await dbQuery(server, 'SELECT id FROM entries WHERE email = ?', [email]);
    expect(rows).toHaveLength(1);
  });

  it('pages while pending: the hosted result and the status page ask to confirm and offer no share link; the confirm page is titled', async () => {
    const p = await setup();
    const form = await fetch(`${server.url}/w/${p.slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: uniqueEmail('hostedpending') }).toString(),
    });
    const html = await form.text();
    expect(form.status).toBe(200);
    expect(html).toContain('Almost there: check your inbox');
    expect(html).not.toContain('Share your link');
    const a = await join(p);
    const status = await (await fetch(`${server.url}/w/${p.slug}/status?token=${encodeURIComponent(a.statusToken)}`)).text();
    expect(status).toContain('Please confirm your email');
    expect(status).not.toContain('Invite friends');
    const token = await plantToken(a.entryId);
    const confirmed = await fetch(`${server.url}/w/${p.slug}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    const page = await confirmed.text();
    expect(page).toMatch(/<h1>[^<]+<\/h1><p><strong>Thanks, your email is confirmed.<\/strong>/);
    expect(page).toContain('Invite friends with your link');
  });

  it('pending entries older than pendingPurgeDays are erased (on start, then hourly)', async () => {
    const p = await setup();
    // A webhook for entry.created (its host never resolves: the deliveries stay pending, events kept).
    ok(await admin.post(`/api/project/${p.projectId}/webhooks`, { url: 'https://hooks.invalid/x', events: ['entry.created'] }), 201);
    const old = await join(p);
    const fresh = await join(p);
    await dbQuery(server, 'UPDATE entries SET created_at = ? WHERE id = ?', [Date.now() - 8 * 86_400_000, old.entryId]);
    const eventsOf = async (id: string) =>
      (await dbQuery<{ payload: string }>(server, 'SELECT payload FROM events WHERE payload LIKE ?', [`%${id}%`])).map((e) => e.payload);
    expect((await eventsOf(old.entryId)).join()).toContain(old.email);
    // Both were sent a confirmation email (queued; the SMTP server here never answers).
    expect(await dbQuery(server, 'SELECT id FROM deliveries WHERE recipient = ?', [old.email])).toHaveLength(1);
    // An imported pending row keeps its old createdAt, but its clock starts at the import (it was never
    // sent a confirmation here): kept. Another imported 8 days ago (its updatedAt) goes.
    const csv =
      'email,status,createdAt\nimported-pending@example.com,pending,2025-01-01T00:00:00Z\nimported-old@example.com,pending,2025-01-01T00:00:00Z\n';
    const imp = await admin.req('POST', `/api/project/${p.projectId}/import?format=csv`, csv, { 'content-type': 'text/csv' });
    expect(ok(imp)).toMatchObject({ imported: 2 });
    await dbQuery(server, 'UPDATE entries SET updated_at = ? WHERE email = ?', [Date.now() - 8 * 86_400_000, 'imported-old@example.com']);
    await server.stop();
    server = await startServer({ env: SMTP, reuse: { dbFile: server.dbFile, dbEnv: server.dbEnv } });
    admin = new Client(server.url);
    admin.cookie = ''; // sessions survive restarts, but log in again to be independent of that
    await new Promise((r) => setTimeout(r, 6_500));
    expect(await dbQuery(server, 'SELECT id FROM entries WHERE id = ?', [old.entryId])).toEqual([]);
    expect(await dbQuery(server, 'SELECT id FROM entries WHERE id = ?', [fresh.entryId])).toHaveLength(1);
    // As with a leave, the outbox keeps nothing of the purged entry: its confirmation email lost its address.
    expect(await dbQuery(server, 'SELECT id FROM deliveries WHERE recipient = ?', [old.email])).toEqual([]);
    expect(await dbQuery(server, 'SELECT id FROM deliveries WHERE recipient = ?', [fresh.email])).toHaveLength(1);
    const scrubbed = await eventsOf(old.entryId);
    expect(scrubbed).toHaveLength(1);
    expect(JSON.parse(scrubbed[0]!).data).toEqual({ entryId: old.entryId });
    expect((await eventsOf(fresh.entryId)).join()).toContain(fresh.email);
    expect(await dbQuery(server, 'SELECT email FROM entries WHERE email LIKE ?', ['imported-%'])).toEqual([
      { email: 'imported-pending@example.com' },
    ]);
  });
});
