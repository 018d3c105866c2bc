// Rate limits over HTTP: joins per IP per project, log-in back-off per email+IP, failed log-ins per
// IP, sign-ups per IP, and --no-rate-limit switching all of them off.
import { describe, expect, it } from 'vitest';
import { Client, postJoin, projectWithKey, signedUp, uniqueEmail, serversForFile } from '../helpers/server.js';

const start = serversForFile();
const serve = (env: Record<string, string>, args: string[] = []) =>
  start({ env: { WAITLIST_RATE_LIMIT: 'on', ...env }, args: ['--open-signup', ...args] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const login = (url: string, email: string, password: string, headers: Record<string, string> = {}) =>
  new Client(url).post('/api/auth/login', { email, password }, headers);

describe('join rate limit', () => {
  it('allows N joins per IP per project, then 429 with Retry-After and RateLimit headers exposed to browsers', async () => {
    const srv = await serve({ WAITLIST_JOIN_LIMIT: '3', WAITLIST_JOIN_WINDOW: '60' }, ['--trust-proxy']);
    const owner = await signedUp(srv.url);
    const a = await projectWithKey(owner);
    const b = await projectWithKey(owner);
    const first = await postJoin(srv.url, a.slug, a.key, { email: uniqueEmail() });
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit-policy')).toBe('"join";q=3;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"join";r=2;t=\d+$/);
    for (let i = 0; i < 2; i++) expect((await postJoin(srv.url, a.slug, a.key, { email: uniqueEmail() })).status).toBe(201);
    const limited = await postJoin(srv.url, a.slug, a.key, { email: uniqueEmail() }, { origin: 'https://landing.example' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
    const retry = Number(limited.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-policy')).toBe('"join";q=3;w=60');
    expect(limited.headers.get('ratelimit')).toMatch(/^"join";r=0;t=\d+$/);
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');
    expect(limited.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect(limited.headers.get('access-control-expose-headers')).toMatch(/RateLimit-Policy/);
    // Another project, or another client behind the trusted proxy, has its own budget.
    expect((await postJoin(srv.url, b.slug, b.key, { email: uniqueEmail() })).status).toBe(201);
    expect((await postJoin(srv.url, a.slug, a.key, { email: uniqueEmail() }, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(201);
  });

  it('counts IPv6 clients per /64 network', async () => {
    const srv = await serve({ WAITLIST_JOIN_LIMIT: '3', WAITLIST_JOIN_WINDOW: '60' }, ['--trust-proxy']);
    const owner = await signedUp(srv.url);
    const { slug, key } = await projectWithKey(owner);
    const from = (ip: string) => postJoin(srv.url, slug, key, { email: uniqueEmail() }, { 'x-forwarded-for': ip });
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::9']) expect((await from(ip)).status).toBe(201);
    expect((await from('2001:0db8:0001:0002::abcd')).status).toBe(429);
    expect((await from('2001:db8:1:3::1')).status).toBe(201);
  });
});

describe('self-service and leaderboard rate limits', () => {
  it('the token routes, their pages and the public leaderboard each answer 429 with Retry-After past the limit', async () => {
    const srv = await serve({ WAITLIST_JOIN_LIMIT: '3', WAITLIST_JOIN_WINDOW: '60' }, ['--trust-proxy']);
    const owner = await signedUp(srv.url);
    const p = await projectWithKey(owner);
    expect((await owner.put(`/api/project/${p.projectId}/settings`, { publicLeaderboard: true })).status).toBe(200);
    const anon = new Client(srv.url);
    const cases: [string, (ip: string) => Promise<{ status: number; headers: Headers }>][] = [
      ['GET /v1/…/status', (ip) => anon.get(`/v1/waitlist/${p.slug}/status?token=nope`, { 'x-forwarded-for': ip })],
      ['GET /w/…/status', (ip) => anon.get(`/w/${p.slug}/status?token=nope`, { 'x-forwarded-for': ip })],
      ['GET /w/…/leave', (ip) => anon.get(`/w/${p.slug}/leave?token=nope`, { 'x-forwarded-for': ip })],
      [
        'POST /w/…/confirm',
        (ip) =>
          anon.req('POST', `/w/${p.slug}/confirm`, 'token=nope', {
            'x-forwarded-for': ip,
            'content-type': 'application/x-www-form-urlencoded',
          }),
      ],
      [
        'GET /v1/…/leaderboard',
        (ip) => anon.get(`/v1/waitlist/${p.slug}/leaderboard`, { 'x-forwarded-for': ip, authorization: `Bearer ${p.key}` }),
      ],
    ];
    for (const [i, [name, call]] of cases.entries()) {
      const ip = `198.51.100.${i + 1}`; // a client of its own per case (the page and API token routes share a budget)
      for (let n = 0; n < 3; n++) expect((await call(ip)).status, `${name} #${n + 1}`).not.toBe(429);
      const limited = await call(ip);
      expect(limited.status, name).toBe(429);
      const retry = Number(limited.headers.get('retry-after'));
      expect(retry, name).toBeGreaterThanOrEqual(1);
      expect(retry, name).toBeLessThanOrEqual(60);
    }
    // One client spends one budget across the subscriber API and the subscriber pages.
    const ip = '198.51.100.77';
    for (let n = 0; n < 2; n++) expect((await cases[0]![1](ip)).status).not.toBe(429);
    expect((await cases[1]![1](ip)).status).not.toBe(429);
    expect((await cases[2]![1](ip)).status).toBe(429);
  });
});

describe('wrong key secrets', () => {
  it('20 per IP per minute get 401, then 429 before bcrypt runs; the real key keeps working', async () => {
    const srv = await serve({});
    const owner = await signedUp(srv.url);
    const { projectId, slug, key } = await projectWithKey(owner);
    expect((await postJoin(srv.url, slug, key, { email: uniqueEmail() })).status).toBe(201);
    // Forge secrets for a second key this process has never verified: each one needs bcrypt. (Wrong
    // secrets for an already verified key are refused by digest, with no bcrypt at all.)
    const other = (await owner.post(`/api/project/${projectId}/apikey`, { name: 'never used' })).body.data.key as string;
    const forged = (i: number) => `${other.slice(0, -6)}${String(i).padStart(6, 'x')}`;
    for (let i = 0; i < 20; i++) expect((await postJoin(srv.url, slug, forged(i), { email: uniqueEmail() })).status).toBe(401);
    const r = await postJoin(srv.url, slug, forged(99), { email: uniqueEmail() });
    expect(r.status).toBe(429);
    expect(r.headers.get('ratelimit-policy')).toBe('"bad-key";q=20;w=60');
    expect((await postJoin(srv.url, slug, key, { email: uniqueEmail() })).status).toBe(201);
  });
});

describe('log-in limits', () => {
  it('5 free failures per email+IP, then a doubling back-off that refuses even the right password; success resets', async () => {
    const srv = await serve({ WAITLIST_LOGIN_MAX_BLOCK: '3' }, ['--trust-proxy']);
    const email = uniqueEmail('victim');
    await signedUp(srv.url, email, 'right password');
    for (let i = 0; i < 5; i++) expect((await login(srv.url, email, 'wrong password')).status).toBe(401);
    expect((await login(srv.url, email, 'right password')).status).toBe(200); // 5 failures are free; success resets

    for (let i = 0; i < 6; i++) expect((await login(srv.url, email, 'wrong password')).status).toBe(401);
    const blocked = await login(srv.url, email, 'right password');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(blocked.headers.get('retry-after')).toBe('1');
    expect(blocked.headers.get('ratelimit-policy')).toMatch(/^"login";q=5;w=\d+$/);
    expect(blocked.headers.get('ratelimit')).toMatch(/^"login";r=0;t=1$/);
    // The same email from another client address is not blocked.
    expect((await login(srv.url, email, 'wrong password', { 'x-forwarded-for': '198.51.100.7' })).status).toBe(401);
    await sleep(1100);
    expect((await login(srv.url, email, 'wrong password')).status).toBe(401); // 7th failure → 2 s
    const longer = await login(srv.url, email, 'right password');
    expect(longer.status).toBe(429);
    expect(longer.headers.get('retry-after')).toBe('2');
    await sleep(2100);
    expect((await login(srv.url, email, 'wrong password')).status).toBe(401); // 8th → 4 s, capped at 3
    expect((await login(srv.url, email, 'right password')).headers.get('retry-after')).toBe('3');
    await sleep(3100);
    expect((await login(srv.url, email, 'right password')).status).toBe(200);
    expect((await login(srv.url, email, 'wrong password')).status).toBe(401); // counter was reset
    expect((await login(srv.url, email, 'right password')).status).toBe(200);
  });

  it('a burst of concurrent guesses is counted before bcrypt runs: 6 checked for one account, the per-IP cap holds', async () => {
    const srv = await serve({ WAITLIST_LOGIN_IP_LIMIT: '20', WAITLIST_LOGIN_IP_WINDOW: '60' }, ['--trust-proxy']);
    const email = uniqueEmail('burst');
    await signedUp(srv.url, email, 'right password');
    // 50 wrong passwords at once for one account from one address: the 5 free failures and the one the
    // back-off lets through are checked (401), the rest refused before bcrypt (429). Counted after bcrypt,
    // all 50 were checked.
    const one = { 'x-forwarded-for': '198.51.100.50' };
    const burst = await Promise.all(Array.from({ length: 50 }, () => login(srv.url, email, 'wrong password', one)));
    expect(burst.filter((r) => r.status === 401)).toHaveLength(6);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(44);
    // 40 log-ins at once for unknown emails from another address: 20 checked (the per-IP cap), 20 refused.
    const other = { 'x-forwarded-for': '198.51.100.51' };
    const spray = await Promise.all(Array.from({ length: 40 }, () => login(srv.url, uniqueEmail('spray'), 'whatever1', other)));
    expect(spray.filter((r) => r.status === 401)).toHaveLength(20);
    expect(spray.filter((r) => r.status === 429)).toHaveLength(20);
  });

  it('passwords are checked a few at a time server-wide: past 64 waiting, 503 with Retry-After (even with limits off)', async () => {
    const srv = await serve({ WAITLIST_RATE_LIMIT: 'off' });
    // 120 log-ins at once from many addresses: a bcrypt each, one at a time; those that find 64 already
    // waiting are told to retry instead of queueing on the thread pool a join's fsync needs.
    const all = await Promise.all(Array.from({ length: 120 }, () => login(srv.url, uniqueEmail('flood'), 'whatever1')));
    const busy = all.filter((r) => r.status === 503);
    expect(all.filter((r) => r.status === 401).length + busy.length).toBe(120);
    expect(busy.length).toBeGreaterThan(0);
    for (const r of busy) {
      expect(r.body.error.code).toBe('service_unavailable');
      expect(r.headers.get('retry-after')).toBe('1');
    }
    // Afterwards a log-in is checked as usual.
    expect((await login(srv.url, uniqueEmail('after'), 'whatever1')).status).toBe(401);
  });

  it('caps failed log-ins per IP across emails (unknown emails count too)', async () => {
    const srv = await serve({ WAITLIST_LOGIN_IP_LIMIT: '3', WAITLIST_LOGIN_IP_WINDOW: '60' }, ['--trust-proxy']);
    const email = uniqueEmail('ipcap');
    await signedUp(srv.url, email, 'right password');
    for (let i = 0; i < 3; i++) expect((await login(srv.url, uniqueEmail('nobody'), 'whatever1')).status).toBe(401);
    const r = await login(srv.url, email, 'right password');
    expect(r.status).toBe(429);
    expect(r.headers.get('ratelimit-policy')).toBe('"login-ip";q=3;w=60');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login(srv.url, email, 'right password', { 'x-forwarded-for': '192.0.2.44' })).status).toBe(200);
  });
});

describe('sign-up limit', () => {
  it('refuses sign-ups from one IP past the hourly limit', async () => {
    const srv = await serve({ WAITLIST_SIGNUP_LIMIT: '2' });
    const c = new Client(srv.url);
    expect((await c.post('/api/auth/signup', { email: uniqueEmail(), password: 'password1' })).status).toBe(201);
    expect((await c.post('/api/auth/signup', { email: uniqueEmail(), password: 'password1' })).status).toBe(201);
    const r = await c.post('/api/auth/signup', { email: uniqueEmail(), password: 'password1' });
    expect(r.status).toBe(429);
    expect(r.headers.get('ratelimit-policy')).toBe('"signup";q=2;w=3600');
  });
});

describe('--no-rate-limit', () => {
  it('switches every limit off', async () => {
    const srv = await start({
      env: { WAITLIST_RATE_LIMIT: '', WAITLIST_JOIN_LIMIT: '2', WAITLIST_LOGIN_IP_LIMIT: '2', WAITLIST_SIGNUP_LIMIT: '1' },
      args: ['--open-signup', '--no-rate-limit'],
    });
    const email = uniqueEmail();
    const owner = await signedUp(srv.url, email, 'right password');
    await signedUp(srv.url);
    const { slug, key } = await projectWithKey(owner);
    for (let i = 0; i < 5; i++) {
      const j = await postJoin(srv.url, slug, key, { email: uniqueEmail() });
      expect(j.status).toBe(201);
      expect(j.headers.get('ratelimit')).toBeNull();
    }
    for (let i = 0; i < 8; i++) expect((await login(srv.url, email, 'wrong password')).status).toBe(401);
    expect((await login(srv.url, email, 'right password')).status).toBe(200);
  });
});
