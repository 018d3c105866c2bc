// LIFECYCLE.md over HTTP: key kinds, statuses, positions and referrals, self-service, invites,
// leaderboard (runs on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set).
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { lifecycleSettingsDefaults } from '../../src/contract/settings-lifecycle.js';
import { assertNoSecretsLeaked, fails, ok } from '../helpers/api.js';
import { bearer, createKey, dbQuery, sha256 } from '../helpers/lifecycle.js';
import { Client, DIALECT, postJoin, projectWithKey, signedUp, uniqueEmail, useServer } from '../helpers/server.js';

let admin: Client;

const server = useServer();
beforeAll(async () => {
  admin = await signedUp(server.url);
});

async function setup(settings?: Record<string, unknown>) {
  const p = await projectWithKey(admin);
  const secret = await createKey(admin, p.projectId, 'secret');
  if (settings) ok(await admin.put(`/api/project/${p.projectId}/settings`, settings));
  return { ...p, secret: secret.key };
}
const join = async (p: { slug: string; key: string }, body: Record<string, unknown> = {}) =>
  ok(await postJoin(server.url, p.slug, p.key, { email: uniqueEmail('lc'), ...body }), 201);
const entry = async (projectId: string, id: string) => ok(await admin.get(`/api/project/${projectId}/waitlist/${id}`));

describe('key kinds', () => {
  it('publishable by default, secret on request; values wl_pk_/wl_sk_; kind in the key object', async () => {
    const p = await projectWithKey(admin);
    expect(p.key.startsWith('wl_pk_')).toBe(true);
    const s = await createKey(admin, p.projectId, 'secret');
    expect(s.key.startsWith('wl_sk_')).toBe(true);
    expect(s.kind).toBe('secret');
    const list = ok(await admin.get(`/api/project/${p.projectId}/apikey`));
    expect(list.items.map((k: { kind: string }) => k.kind).sort()).toEqual(['publishable', 'secret']);
    fails(await admin.post(`/api/project/${p.projectId}/apikey`, { name: 'x', kind: 'root' }), 400, 'validation_failed');
  });

  it('publishable keys cannot redeem (403); secret keys from a browser are refused (403); secret keys join from servers', async () => {
    const p = await setup();
    const c = new Client(server.url);
    fails(await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: 'x' }, bearer(p.key)), 403, 'forbidden');
    fails(await c.get(`/v1/waitlist/${p.slug}/invites/abc`, bearer(p.key)), 403, 'forbidden');
    fails(
      await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: 'x' }, bearer(p.secret, { origin: 'https://site.example' })),
      403,
      'forbidden',
    );
    fails(await postJoin(server.url, p.slug, p.secret, { email: uniqueEmail() }, { origin: 'https://site.example' }), 403, 'forbidden');
    // The sign-up surface's keyed reads too (the challenge and the form definition).
    for (const path of ['challenge', 'form']) {
      fails(await c.get(`/v1/waitlist/${p.slug}/${path}`, bearer(p.secret, { origin: 'https://site.example' })), 403, 'forbidden');
      ok(await c.get(`/v1/waitlist/${p.slug}/${path}`, bearer(p.secret)));
      ok(await c.get(`/v1/waitlist/${p.slug}/${path}`, bearer(p.key, { origin: 'https://site.example' })));
    }
    ok(await postJoin(server.url, p.slug, p.secret, { email: uniqueEmail() }), 201);
    fails(await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: 'x' }), 401, 'unauthorized');
    // The subscriber's token routes take no key, but a secret one sent along from a page is refused too
    // (and the leave erases nothing); without the Origin header, or with a publishable key, they answer.
    const e = await join(p);
    const fromPage = bearer(p.secret, { origin: 'https://site.example' });
    fails(await c.get(`/v1/waitlist/${p.slug}/status?token=${e.statusToken}`, fromPage), 403, 'forbidden');
    fails(await c.post(`/v1/waitlist/${p.slug}/confirm`, { token: e.statusToken }, fromPage), 403, 'forbidden');
    fails(await c.post(`/v1/waitlist/${p.slug}/leave`, { token: e.statusToken }, fromPage), 403, 'forbidden');
    ok(await c.get(`/v1/waitlist/${p.slug}/status?token=${e.statusToken}`, bearer(p.key, { origin: 'https://site.example' })));
    ok(await c.get(`/v1/waitlist/${p.slug}/status?token=${e.statusToken}`, bearer(p.secret)));
  });

  it('a key value with the wrong kind tag is refused', async () => {
    const p = await setup();
    const forged = `wl_sk_${p.key.slice('wl_pk_'.length)}`;
    fails(await postJoin(server.url, p.slug, forged, { email: uniqueEmail() }), 401, 'unauthorized');
  });
});

describe('join, statuses and positions', () => {
  it("links are built on the listening URL, never on the request's Host header (a sender could point them elsewhere)", async () => {
    const p = await setup();
    const email = uniqueEmail('host');
    const body = JSON.stringify({ email });
    const url = new URL(`${server.url}/v1/waitlist/${p.slug}/join`);
    const answer = await new Promise<{ status: number; json: { data: { referralUrl: string } } }>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', authorization: `Bearer ${p.key}` } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(201);
    expect(answer.json.data.referralUrl.startsWith(`${server.url}/w/${p.slug}?ref=`)).toBe(true);
  });

  it('join answers status, position, referralCode, referralUrl and statusToken', async () => {
    const p = await setup();
    const a = await join(p);
    expect(a.status).toBe('waiting');
    expect(a.position).toBe(1);
    expect(a.referralCode.length).toBeGreaterThanOrEqual(8);
    expect(a.referralUrl).toBe(`${server.url}/w/${p.slug}?ref=${encodeURIComponent(a.referralCode)}`);
    expect(a.statusToken.length).toBeGreaterThanOrEqual(22);
    const b = await join(p);
    expect(b.position).toBe(2);
    expect(b.referralCode).not.toBe(a.referralCode);
    const e = await entry(p.projectId, b.entryId);
    expect(e).toMatchObject({
      status: 'waiting',
      position: 2,
      referredBy: null,
      referrals: 0,
      confirmedAt: null,
      invitedAt: null,
      acceptedAt: null,
    });
    // nothing secret is stored in the clear
    const rows = await dbQuery(server, 'SELECT * FROM entries WHERE id = ?', [b.entryId]);
    expect(JSON.stringify(rows)).not.toContain(b.statusToken);
  });

  it('referrals: ref credits the referrer, boost moves it up, unknown ref is ignored, the referral URL template applies', async () => {
    const p = await setup({ referralBoost: 2, referralUrl: 'https://app.example.com/join?r={code}' });
    const es = [];
    for (let i = 0; i < 5; i++) es.push(await join(p));
    expect(es[4].referralUrl).toBe(`https://app.example.com/join?r=${encodeURIComponent(es[4].referralCode)}`);
    const f = await join(p, { ref: es[4].referralCode });
    expect((await entry(p.projectId, f.entryId)).referredBy).toBe(es[4].entryId);
    // e5: k = 5 - 2 = 3 → ties with e3 (ordinal 3 first) → position 4
    expect((await entry(p.projectId, es[4].entryId)).position).toBe(4);
    expect((await entry(p.projectId, es[4].entryId)).referrals).toBe(1);
    const g = await join(p, { ref: 'no-such-code' });
    expect((await entry(p.projectId, g.entryId)).referredBy).toBeNull();
    // sorted by position
    const list = ok(await admin.get(`/api/project/${p.projectId}/waitlist?sort=position&limit=100`));
    expect(list.items.map((x: { position: number }) => x.position)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(list.items[3].entryId).toBe(es[4].entryId);
    // stats
    const stats = ok(await admin.get(`/api/project/${p.projectId}/stats`));
    expect(stats.byStatus).toEqual({ pending: 0, waiting: 7, invited: 0, accepted: 0 });
    expect(stats.referred).toBe(1);
    // deleting the referred entry takes the referral back; deleting moves everyone behind up
    ok(await admin.del(`/api/project/${p.projectId}/waitlist/${f.entryId}`));
    expect(await entry(p.projectId, es[4].entryId)).toMatchObject({ referrals: 0, position: 5 });
    ok(await admin.del(`/api/project/${p.projectId}/waitlist/${es[0].entryId}`));
    expect((await entry(p.projectId, es[4].entryId)).position).toBe(4);
    // a boost change re-keys existing referrers
    await join(p, { ref: es[4].referralCode });
    ok(await admin.put(`/api/project/${p.projectId}/settings`, { referralBoost: 1000 }));
    expect((await entry(p.projectId, es[4].entryId)).position).toBe(1);
    // The boost and the re-keying commit together; and the same boost sent again re-keys too, so a queue
    // left stale (as a crash between two transactions once left it) is repaired by retrying the PUT.
    await dbQuery(server, 'UPDATE entries SET k = ordinal WHERE id = ?', [es[4].entryId]);
    expect((await entry(p.projectId, es[4].entryId)).position).toBe(4);
    ok(await admin.put(`/api/project/${p.projectId}/settings`, { referralBoost: 1000 }));
    expect((await entry(p.projectId, es[4].entryId)).position).toBe(1);
  });

  it('a refused duplicate (join or import row) takes no join ordinal: a boost counts places among entries created', async () => {
    const p = await setup({ referralBoost: 2 });
    const a = await join(p);
    const b = await join(p);
    for (let i = 0; i < 3; i++) fails(await postJoin(server.url, p.slug, p.key, { email: a.email }), 409, 'email_taken');
    // Many at once (one batch): every one a 409, and none takes an ordinal.
    const burst = await Promise.all(
      Array.from({ length: 12 }, () => postJoin(server.url, p.slug, p.key, { email: ` ${b.email.toUpperCase()} ` })),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(12).fill(409));
    const c = await join(p);
    const d = await join(p, { ref: c.referralCode });
    // c: ordinal 3, k = 3 - 2 = 1: level with a (ordinal 1, first), ahead of b.
    const order = ok(await admin.get(`/api/project/${p.projectId}/waitlist?sort=position&limit=100`));
    expect(order.items.map((x: { entryId: string }) => x.entryId)).toEqual([a.entryId, c.entryId, b.entryId, d.entryId]);
    // An import whose rows repeat the list (and each other) gives ordinals only to the rows it adds.
    const csv = `email,createdAt\n${a.email},2025-01-01T00:00:00Z\nnew1@example.com,2025-01-02T00:00:00Z\nNEW1@example.com,2025-01-03T00:00:00Z\nnew2@example.com,2025-01-04T00:00:00Z\n`;
    const imported = await admin.req('POST', `/api/project/${p.projectId}/import?format=csv`, csv, { 'content-type': 'text/csv' });
    expect(ok(imported)).toMatchObject({ imported: 2, duplicates: 2 });
    const e = await join(p);
    const ordinals = await dbQuery<{ ordinal: number | string }>(
      server,
      'SELECT ordinal FROM entries WHERE project_id = ? ORDER BY ordinal',
      [p.projectId],
    );
    expect(ordinals.map((r) => Number(r.ordinal))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect((await entry(p.projectId, e.entryId)).position).toBe(7);
  });

  it('list filters by status and validates status/sort; export carries the new fields', async () => {
    const p = await setup();
    const a = await join(p);
    await join(p);
    fails(await admin.get(`/api/project/${p.projectId}/waitlist?status=gone`), 400, 'validation_failed');
    fails(await admin.get(`/api/project/${p.projectId}/waitlist?sort=best`), 400, 'validation_failed');
    ok(await admin.post(`/api/project/${p.projectId}/invites`, { entryIds: [a.entryId] }));
    const invited = ok(await admin.get(`/api/project/${p.projectId}/waitlist?status=invited`));
    expect(invited.total).toBe(1);
    expect(invited.items[0]).toMatchObject({ entryId: a.entryId, status: 'invited', position: null });
    const waiting = ok(await admin.get(`/api/project/${p.projectId}/waitlist?status=waiting`));
    expect(waiting.items[0].position).toBe(1);
    // The waiting list is newest first unless sort=position asks for queue order (both dialects).
    const c = await join(p);
    const b = waiting.items[0];
    for (const q of ['status=waiting', 'status=waiting&sort=newest']) {
      const newest = ok(await admin.get(`/api/project/${p.projectId}/waitlist?${q}`));
      expect(newest).toMatchObject({ total: 2, totalPages: 1 });
      expect(newest.items.map((x: { entryId: string; position: number }) => [x.entryId, x.position])).toEqual([
        [c.entryId, 2],
        [b.entryId, 1],
      ]);
      const paged = ok(await admin.get(`/api/project/${p.projectId}/waitlist?${q}&page=2&limit=1`));
      expect(paged).toMatchObject({ total: 2, totalPages: 2 });
      expect(paged.items.map((x: { entryId: string }) => x.entryId)).toEqual([b.entryId]);
    }
    const queue = ok(await admin.get(`/api/project/${p.projectId}/waitlist?status=waiting&sort=position`));
    expect(queue.items.map((x: { entryId: string }) => x.entryId)).toEqual([b.entryId, c.entryId]);
    const exp = await admin.get(`/api/project/${p.projectId}/waitlist/export?format=json`);
    const rows = JSON.parse(exp.text);
    expect(rows.find((r: { entryId: string }) => r.entryId === a.entryId)).toMatchObject({
      status: 'invited',
      position: null,
      referrals: 0,
    });
    expect(rows.find((r: { entryId: string }) => r.entryId === b.entryId).position).toBe(1);
    const csv = await admin.get(`/api/project/${p.projectId}/waitlist/export?format=csv`);
    expect(csv.text.split('\n')[0]).toContain(
      '"status","position","referralCode","referredBy","referrals","confirmedAt","invitedAt","acceptedAt"',
    );
  });
});

describe('subscriber self-service', () => {
  it('status shows the public view; leave erases the row for real; tokens fail with 404 afterwards', async () => {
    const p = await setup();
    await join(p);
    const email = uniqueEmail('leaver');
    const me = await join(p, { email, name: 'Leaving Person', metadata: { secretish: 'meta-value-xyz' } });
    const c = new Client(server.url);
    const st = ok(await c.get(`/v1/waitlist/${p.slug}/status?token=${encodeURIComponent(me.statusToken)}`));
    expect(st).toEqual({
      email,
      name: 'Leaving Person',
      status: 'waiting',
      position: 2,
      total: 2,
      referralCode: me.referralCode,
      referralUrl: me.referralUrl,
      referrals: 0,
    });
    fails(await c.get(`/v1/waitlist/${p.slug}/status?token=nope`), 404, 'not_found');
    fails(await c.get(`/v1/waitlist/${p.slug}/status`), 400, 'validation_failed');
    // another project's slug with this token → 404
    const other = await setup();
    fails(await c.get(`/v1/waitlist/${other.slug}/status?token=${encodeURIComponent(me.statusToken)}`), 404, 'not_found');
    fails(await c.post(`/v1/waitlist/${p.slug}/leave`, { token: 'nope' }), 404, 'not_found');
    // the leave page asks first: a GET changes nothing
    const page = await c.get(`/w/${p.slug}/leave?token=${encodeURIComponent(me.statusToken)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<form method="post"');
    ok(await c.get(`/v1/waitlist/${p.slug}/status?token=${encodeURIComponent(me.statusToken)}`));
    ok(await c.post(`/v1/waitlist/${p.slug}/leave`, { token: me.statusToken }));
    fails(await c.get(`/v1/waitlist/${p.slug}/status?token=${encodeURIComponent(me.statusToken)}`), 404, 'not_found');
    fails(await c.post(`/v1/waitlist/${p.slug}/leave`, { token: me.statusToken }), 404, 'not_found');
    // The pages too: a used, unknown or missing token is the 404 page, not a button that cannot work.
    for (const q of [`?token=${encodeURIComponent(me.statusToken)}`, '?token=nope', '']) {
      for (const page of ['leave', 'confirm', 'status']) {
        const r = await c.get(`/w/${p.slug}/${page}${q}`);
        expect(r.status, `${page}${q}`).toBe(404);
        expect(r.text).not.toContain('<form method="post"');
      }
    }
    fails(await admin.get(`/api/project/${p.projectId}/waitlist/${me.entryId}`), 404, 'not_found');
    const rows = await dbQuery(server, 'SELECT * FROM entries WHERE id = ? OR email = ?', [me.entryId, email]);
    expect(rows).toEqual([]);
    // nor in PostgreSQL's search copy (entry_search)
    if (DIALECT === 'pg') {
      const copies = await dbQuery(server, 'SELECT entry_id FROM entry_search WHERE entry_id = ? OR email_norm = ?', [
        me.entryId,
        email.toLowerCase(),
      ]);
      expect(copies).toEqual([]);
    }
    // nor in the outbox: events keep only the id; no email row names the address
    const evs = await dbQuery<{ type: string; payload: string }>(server, 'SELECT type, payload FROM events WHERE payload LIKE ?', [
      `%${me.entryId}%`,
    ]);
    // (events no webhook wants are deleted once fanned out, so they may already be gone)
    for (const e of evs) expect(['entry.created', 'entry.deleted']).toContain(e.type);
    for (const e of evs) {
      expect(e.payload).not.toContain(email);
      expect(e.payload).not.toContain('meta-value-xyz');
    }
    expect(await dbQuery(server, 'SELECT id FROM deliveries WHERE recipient = ?', [email])).toEqual([]);
    if (DIALECT === 'sqlite') {
      const { readFileSync } = await import('node:fs');
      const file = readFileSync(server.dbFile).toString('latin1');
      expect(file.includes(email)).toBe(false);
      expect(file.includes('meta-value-xyz')).toBe(false);
    }
    // the same email may join again
    const again = await join(p, { email });
    expect(again.position).toBe(2);
  });

  it('tokens and codes begin with their time; those of earlier versions (no prefix) keep working', async () => {
    const p = await setup({ referralBoost: 5 });
    const me = await join(p);
    expect(me.statusToken).toMatch(/^[0-9a-z]{9}[\w-]{43}$/);
    expect(me.referralCode).toMatch(/^[0-9a-z]{9}[\w-]{8}$/);
    const [stored] = await dbQuery<{ h: string }>(server, 'SELECT status_token_hash AS h FROM entries WHERE id = ?', [me.entryId]);
    expect(stored!.h).toBe(me.statusToken.slice(0, 9) + sha256(me.statusToken));
    // An entry as an earlier version left it: a bare SHA-256 of a 43-character token, a 12-character code.
    const old = await join(p);
    const legacyToken = 'k1X2y3Z4a5B6c7D8e9F0g1H2i3J4k5L6m7N8o9P0q1R';
    const legacyCode = 'Xb3k9QpL2mTz';
    await dbQuery(server, 'UPDATE entries SET status_token_hash = ?, referral_code = ? WHERE id = ?', [
      sha256(legacyToken),
      legacyCode,
      old.entryId,
    ]);
    const c = new Client(server.url);
    const st = ok(await c.get(`/v1/waitlist/${p.slug}/status?token=${legacyToken}`));
    expect(st).toMatchObject({ status: 'waiting', position: 2, referralCode: legacyCode, referrals: 0 });
    fails(await c.get(`/v1/waitlist/${p.slug}/status?token=${old.statusToken}`), 404, 'not_found');
    await join(p, { ref: legacyCode });
    expect(ok(await c.get(`/v1/waitlist/${p.slug}/status?token=${legacyToken}`))).toMatchObject({ position: 1, referrals: 1 });
    // an invite code planted as an earlier version stored it
    const inv = ok(await admin.post(`/api/project/${p.projectId}/invites`, { entryIds: [old.entryId] }));
    expect(inv.invited[0].inviteCode).toMatch(/^[0-9a-z]{9}[\w-]{43}$/);
    const legacyInvite = 'Q9w8E7r6T5y4U3i2O1p0A9s8D7f6G5h4J3k2L1z0X9c';
    // …with no expiry stored (never expires: the check and the redeem agree, on both databases).
    await dbQuery(server, 'UPDATE entries SET invite_code_hash = ?, invite_expires_at = NULL WHERE id = ?', [
      sha256(legacyInvite),
      old.entryId,
    ]);
    ok(await c.get(`/v1/waitlist/${p.slug}/invites/${legacyInvite}`, bearer(p.secret)));
    ok(await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: legacyInvite }, bearer(p.secret)));
    ok(await c.post(`/v1/waitlist/${p.slug}/leave`, { token: legacyToken }));
    expect(await dbQuery(server, 'SELECT id FROM entries WHERE id = ?', [old.entryId])).toEqual([]);
  });

  it('the confirmation-token and invite-code indexes are partial: they hold only the rows that have one', async () => {
    for (const name of ['entries_confirm_token_uq', 'entries_invite_code_uq']) {
      const [def] =
        DIALECT === 'pg'
          ? await dbQuery<{ d: string }>(server, 'SELECT indexdef AS d FROM pg_indexes WHERE indexname = ?', [name])
          : await dbQuery<{ d: string }>(server, 'SELECT sql AS d FROM sqlite_master WHERE name = ?', [name]);
      expect(def!.d).toMatch(/UNIQUE INDEX/i);
      expect(def!.d).toMatch(/(confirm_token_hash|invite_code_hash)"?\)? IS NOT NULL/);
    }
  });

  it('leave through the page form (one click) and the status page render', async () => {
    const p = await setup();
    const me = await join(p, { name: '<script>x</script>' });
    const c = new Client(server.url);
    const page = await c.get(`/w/${p.slug}/status?token=${encodeURIComponent(me.statusToken)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('#1');
    expect(page.text).not.toContain('<script>x</script>');
    expect((await c.get(`/w/${p.slug}/status?token=bad`)).status).toBe(404);
    const r = await c.req('POST', `/w/${p.slug}/leave`, `token=${encodeURIComponent(me.statusToken)}`, {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(r.status).toBe(200);
    fails(await admin.get(`/api/project/${p.projectId}/waitlist/${me.entryId}`), 404, 'not_found');
  });
});

describe('double opt-in', () => {
  it('cannot be turned on without SMTP (409 smtp_not_configured); settings validate', async () => {
    const p = await setup();
    fails(await admin.put(`/api/project/${p.projectId}/settings`, { doubleOptIn: true }), 409, 'smtp_not_configured');
    const s = ok(await admin.get(`/api/project/${p.projectId}/settings`));
    expect(s).toMatchObject(lifecycleSettingsDefaults); // their values: test/docs/settings-defaults.test.ts
    for (const bad of [
      { referralBoost: 1001 },
      { referralBoost: 1.5 },
      { inviteTtlDays: 0 },
      { referralUrl: 'https://x.example/' },
      { inviteUrl: 'ftp://x/{code}' },
    ]) {
      fails(await admin.put(`/api/project/${p.projectId}/settings`, bad), 400, 'validation_failed');
    }
  });
});

describe('invites', () => {
  it('invites the next N in queue order; redeem once; check; used/unknown/wrong project', async () => {
    const p = await setup();
    const es = [];
    for (let i = 0; i < 4; i++) es.push(await join(p));
    const dry = ok(await admin.post(`/api/project/${p.projectId}/invites`, { count: 2, dryRun: true }));
    expect(dry.invited.map((x: { entryId: string }) => x.entryId)).toEqual([es[0].entryId, es[1].entryId]);
    expect((await entry(p.projectId, es[0].entryId)).status).toBe('waiting');
    const inv = ok(await admin.post(`/api/project/${p.projectId}/invites`, { count: 2 }));
    expect(inv.invited.map((x: { entryId: string }) => x.entryId)).toEqual([es[0].entryId, es[1].entryId]);
    const code = inv.invited[0].inviteCode as string;
    expect(code.length).toBeGreaterThanOrEqual(22);
    expect(Date.parse(inv.invited[0].expiresAt) - Date.now()).toBeGreaterThan(13.9 * 86_400_000);
    expect((await entry(p.projectId, es[2].entryId)).position).toBe(1);
    const c = new Client(server.url);
    const chk = ok(await c.get(`/v1/waitlist/${p.slug}/invites/${encodeURIComponent(code)}`, bearer(p.secret)));
    expect(chk).toMatchObject({ entryId: es[0].entryId, email: es[0].email, status: 'invited' });
    const other = await setup();
    fails(await c.post(`/v1/waitlist/${other.slug}/invites/redeem`, { code }, bearer(other.secret)), 404, 'not_found');
    const red = ok(await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code }, bearer(p.secret)));
    expect(red).toEqual({ entryId: es[0].entryId, email: es[0].email, name: null, metadata: {}, status: 'accepted' });
    fails(await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code }, bearer(p.secret)), 409, 'invite_used');
    fails(await c.get(`/v1/waitlist/${p.slug}/invites/${encodeURIComponent(code)}`, bearer(p.secret)), 409, 'invite_used');
    fails(await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: 'unknown' }, bearer(p.secret)), 404, 'not_found');
    fails(await c.get(`/v1/waitlist/${p.slug}/invites/unknown`, bearer(p.secret)), 404, 'not_found');
    expect(await entry(p.projectId, es[0].entryId)).toMatchObject({ status: 'accepted', position: null });
    // re-inviting renews the code; accepted entries cannot be invited
    const again = ok(await admin.post(`/api/project/${p.projectId}/invites`, { entryIds: [es[1].entryId] }));
    fails(await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: inv.invited[1].inviteCode }, bearer(p.secret)), 404, 'not_found');
    ok(await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: again.invited[0].inviteCode }, bearer(p.secret)));
    fails(await admin.post(`/api/project/${p.projectId}/invites`, { entryIds: [es[0].entryId] }), 400, 'validation_failed');
    fails(await admin.post(`/api/project/${p.projectId}/invites`, { entryIds: ['ent_nope'] }), 404, 'not_found');
    // A batch by id as large as one by count fits in the body (no 413 at ~500 ids); one id more → 400.
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `ent_01ARZ3NDEKTSV4RRFFQ69${String(i).padStart(5, '0')}`);
    fails(await admin.post(`/api/project/${p.projectId}/invites`, { entryIds: ids(10_000) }), 404, 'not_found');
    fails(await admin.post(`/api/project/${p.projectId}/invites`, { entryIds: ids(10_001) }), 400, 'validation_failed');
    fails(await admin.post(`/api/project/${p.projectId}/invites`, { count: 0 }), 400, 'validation_failed');
    fails(await admin.post(`/api/project/${p.projectId}/invites`, { count: 10_001 }), 400, 'validation_failed');
    fails(await admin.post(`/api/project/${p.projectId}/invites`, {}), 400, 'validation_failed');
    const stats = ok(await admin.get(`/api/project/${p.projectId}/stats`));
    expect(stats.byStatus).toEqual({ pending: 0, waiting: 2, invited: 0, accepted: 2 });
  });

  it('an expired code answers 409 invite_expired; two concurrent redeems: exactly one 200', async () => {
    const p = await setup();
    const a = await join(p);
    const b = await join(p);
    const inv = ok(await admin.post(`/api/project/${p.projectId}/invites`, { count: 2 }));
    await dbQuery(server, 'UPDATE entries SET invite_expires_at = ? WHERE id = ?', [Date.now() - 1000, a.entryId]);
    const c = new Client(server.url);
    const codeA = inv.invited.find((x: { entryId: string }) => x.entryId === a.entryId).inviteCode;
    fails(await c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: codeA }, bearer(p.secret)), 409, 'invite_expired');
    fails(await c.get(`/v1/waitlist/${p.slug}/invites/${encodeURIComponent(codeA)}`, bearer(p.secret)), 409, 'invite_expired');
    const codeB = inv.invited.find((x: { entryId: string }) => x.entryId === b.entryId).inviteCode;
    const all = await Promise.all(
      Array.from({ length: 8 }, () => c.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: codeB }, bearer(p.secret))),
    );
    expect(all.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of all.filter((x) => x.status !== 200)) fails(r, 409, 'invite_used');
  });
});

describe('leaderboard', () => {
  it('public leaderboard is 404 while off; masks emails; management leaderboard has full entries', async () => {
    const p = await setup();
    const a = await join(p, { name: 'Ann' });
    const b = await join(p, { email: `bobby-${Date.now()}@mail.example.org` });
    // A name with an address typed into it: the address is masked too.
    const d = await join(p, { email: `dave-${Date.now()}@corp.example`, name: 'Dave (dave.smith@corp.example)' });
    for (let i = 0; i < 2; i++) await join(p, { ref: b.referralCode });
    await join(p, { ref: a.referralCode });
    await join(p, { ref: d.referralCode });
    const c = new Client(server.url);
    fails(await c.get(`/v1/waitlist/${p.slug}/leaderboard`, bearer(p.key)), 404, 'not_found');
    ok(await admin.put(`/api/project/${p.projectId}/settings`, { publicLeaderboard: true }));
    fails(await c.get(`/v1/waitlist/${p.slug}/leaderboard`), 401, 'unauthorized');
    const lb = ok(await c.get(`/v1/waitlist/${p.slug}/leaderboard`, bearer(p.key)));
    expect(lb).toEqual([
      { rank: 1, name: 'b***@m***.org', referrals: 2 },
      { rank: 2, name: 'Ann', referrals: 1 },
      { rank: 3, name: 'Dave (d***@c***.example)', referrals: 1 },
    ]);
    expect(JSON.stringify(lb)).not.toContain('@corp.example');
    const full = ok(await admin.get(`/api/project/${p.projectId}/leaderboard`));
    expect(full[0]).toMatchObject({ rank: 1, entryId: b.entryId, email: b.email, referrals: 2 });
  });
});

it('no secrets leaked in any response', () => {
  assertNoSecretsLeaked();
});
