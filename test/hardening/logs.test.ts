// Logs: the opt-in access log has a line per request with its id, and nothing a client sent as a
// secret (passwords, keys, cookies, session tokens, query strings, emails) ever reaches the output.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Client, postJoin, projectWithKey, signedUp, uniqueEmail, type TestServer, serversForFile } from '../helpers/server.js';

const serve = serversForFile();

/** Runs a session that sends every kind of secret; returns them and the request ids seen. */
async function exercise(srv: TestServer) {
  const email = uniqueEmail('secret-owner');
  const password = 'Sup3r-Secret-Passw0rd';
  const c = new Client(srv.url);
  const ids: string[] = [];
  const track = <T extends { headers: Headers }>(r: T) => (ids.push(r.headers.get('x-request-id')!), r);
  track(await c.post('/api/auth/signup', { email, password }));
  const token = c.cookie.split('=')[1]!;
  track(await c.post('/api/auth/login', { email, password: 'Wr0ng-Secret-Passw0rd' }));
  track(await c.post('/api/auth/login', { email, password }));
  const p = await projectWithKey(c);
  const joiner = uniqueEmail('secret-joiner');
  track(await postJoin(srv.url, p.slug, p.key, { email: joiner, name: 'Secret Name', metadata: { token: 'meta-secret-value' } }));
  track(await postJoin(srv.url, p.slug, `${p.key.slice(0, -4)}abcd`, { email: joiner }));
  // An invite code travels in a path (GET …/invites/:code, from the developer's backend).
  const secretKey = (await c.post(`/api/project/${p.projectId}/apikey`, { name: 'backend', kind: 'secret' })).body.data.key as string;
  const inviteCode = (await c.post(`/api/project/${p.projectId}/invites`, { count: 1 })).body.data.invited[0].inviteCode as string;
  track(await c.get(`/v1/waitlist/${p.slug}/invites/${inviteCode}`, { authorization: `Bearer ${secretKey}` }));
  track(await c.get(`/v1/waitlist/${p.slug}/invites/${inviteCode}x`, { authorization: `Bearer ${secretKey}` })); // 404
  track(await c.get(`/api/project/${p.projectId}/waitlist?search=secret-search-term&page=1`));
  track(await c.get(`/api/project/${p.projectId}/waitlist?page=zz&token=query-token-value`));
  track(await c.post('/api/auth/logout'));
  const secrets = [
    password,
    secretKey,
    inviteCode,
    inviteCode.slice(9), // its random part
    'Wr0ng-Secret-Passw0rd',
    p.key,
    p.key.slice(3),
    token,
    c.cookie || token,
    'secret-search-term',
    'query-token-value',
    'meta-secret-value',
    email,
    joiner,
    'Secret Name',
  ];
  return { secrets: secrets.filter(Boolean), ids };
}

describe('access log (--log-requests)', () => {
  it('prints method, path, status, ms and request id per request, and no secrets', async () => {
    const srv = await serve({ args: ['--log-requests'] });
    const { secrets, ids } = await exercise(srv);
    await srv.stop();
    const out = srv.output();
    for (const id of ids) expect(out).toContain(` ${id} `);
    expect(out).toMatch(/ POST \/api\/auth\/login 401 \d+\.\dms/);
    expect(out).toMatch(/ POST \/v1\/waitlist\/[a-z0-9-]+\/join 201 \d+\.\dms/);
    expect(out).toMatch(/ GET \/api\/project\/prj_\w+\/waitlist 400 /);
    expect(out).toMatch(/ GET \/v1\/waitlist\/[a-z0-9-]+\/invites\/:code 200 /);
    expect(out).toMatch(/ GET \/v1\/waitlist\/[a-z0-9-]+\/invites\/:code 404 /);
    for (const s of secrets) expect(out, s).not.toContain(s);
    expect(out).not.toMatch(/waitlist_session|Bearer|wl_[A-Za-z0-9_-]{10}/);
  });

  it('WAITLIST_LOG=requests turns it on; off by default', async () => {
    const on = await serve({ env: { WAITLIST_LOG: 'requests' } });
    const off = await serve();
    await new Client(on.url).get('/healthz');
    await new Client(off.url).get('/healthz');
    await on.stop();
    await off.stop();
    expect(on.output()).toMatch(/ GET \/healthz 200 /);
    expect(off.output()).not.toMatch(/healthz/);
  });
});

describe('default output', () => {
  it('holds no secrets either', async () => {
    const srv = await serve();
    const { secrets } = await exercise(srv);
    await srv.stop();
    for (const s of secrets) expect(srv.output(), s).not.toContain(s);
  });
});

describe('a database failure', () => {
  it('answers a generic 500 envelope and logs the request id and query without bound values', async () => {
    const srv = await serve();
    const owner = await signedUp(srv.url);
    const p = await projectWithKey(owner);
    // A matching entry, so the search (answered by the FTS index) must read the broken table for its rows.
    expect((await postJoin(srv.url, p.slug, p.key, { email: 'needle-secret-term@example.com' })).status).toBe(201);
    const db = new Database(srv.dbFile);
    db.exec('ALTER TABLE entries RENAME TO entries_gone');
    db.close();
    const r = await owner.get(`/api/project/${p.projectId}/waitlist?search=needle-secret-term`);
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ status: 'error', message: 'Internal server error', error: { code: 'internal' } });
    expect(r.text).not.toMatch(/select|entries|sqlite|at /i);
    const j = await postJoin(srv.url, p.slug, p.key, { email: 'victim-secret@example.com' });
    expect(j.status).toBe(500);
    await srv.stop();
    const out = srv.output();
    expect(out).toContain(`[${r.headers.get('x-request-id')}]`);
    expect(out).toMatch(/no such table/);
    for (const secret of ['needle-secret-term', 'victim-secret', p.key]) expect(out, secret).not.toContain(secret);
  });
});
