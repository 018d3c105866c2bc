// Per-project join settings over HTTP: the sub-resource itself, and what each setting does at join.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, postJoin, projectWithKey, signedUp, uniqueEmail, useServer } from '../helpers/server.js';
import { SETTINGS_DEFAULTS } from '../helpers/api.js';

let owner: Client;
let other: Client;

const srv = useServer({ args: ['--open-signup'] });
beforeAll(async () => {
  owner = await signedUp(srv.url);
  other = await signedUp(srv.url);
});

describe('GET/PUT /api/project/:projectId/settings', () => {
  it('starts with the defaults, updates only the fields given, and leaves the Project shape alone', async () => {
    const { projectId, slug } = await projectWithKey(owner);
    const g = await owner.get(`/api/project/${projectId}/settings`);
    expect(g.status).toBe(200);
    expect(g.body.data).toEqual(SETTINGS_DEFAULTS);
    expect((await owner.get(`/api/project/${slug}/settings`)).body.data).toEqual(SETTINGS_DEFAULTS); // slug works too

    const p1 = await owner.put(`/api/project/${projectId}/settings`, {
      allowedOrigins: ['https://Example.com', 'http://localhost:3000', 'https://example.com/'],
    });
    expect(p1.status).toBe(200);
    expect(p1.body.data).toEqual({ ...SETTINGS_DEFAULTS, allowedOrigins: ['https://example.com', 'http://localhost:3000'] });
    const p2 = await owner.put(`/api/project/${projectId}/settings`, { honeypotField: 'website', blockDisposableEmails: true });
    expect(p2.body.data).toEqual({
      ...SETTINGS_DEFAULTS,
      allowedOrigins: ['https://example.com', 'http://localhost:3000'],
      blockDisposableEmails: true,
      honeypotField: 'website',
    });
    expect((await owner.get(`/api/project/${projectId}/settings`)).body.data).toEqual(p2.body.data);
    const p3 = await owner.put(`/api/project/${projectId}/settings`, {
      allowedOrigins: [],
      honeypotField: null,
      blockDisposableEmails: false,
    });
    expect(p3.body.data).toEqual(SETTINGS_DEFAULTS);

    const project = await owner.get(`/api/project/${projectId}`);
    expect(Object.keys(project.body.data).sort()).toEqual(['createdAt', 'name', 'projectId', 'slug', 'updatedAt']);
  });

  it.each([
    ['unknown field', { colour: 'red' }, 'colour'],
    ['origin with a path', { allowedOrigins: ['https://example.com/app'] }, 'allowedOrigins.0'],
    ['not an origin', { allowedOrigins: ['example.com'] }, 'allowedOrigins.0'],
    ['ftp origin', { allowedOrigins: ['ftp://example.com'] }, 'allowedOrigins.0'],
    ['wildcard', { allowedOrigins: ['*'] }, 'allowedOrigins.0'],
    ['origins not an array', { allowedOrigins: 'https://example.com' }, 'allowedOrigins'],
    ['too many origins', { allowedOrigins: Array.from({ length: 51 }, (_, i) => `https://a${i}.example.com`) }, 'allowedOrigins'],
    ['boolean as string', { blockDisposableEmails: 'yes' }, 'blockDisposableEmails'],
    ['honeypot shadows email', { honeypotField: 'email' }, 'honeypotField'],
    ['honeypot __proto__', { honeypotField: '__proto__' }, 'honeypotField'],
    ['honeypot with spaces', { honeypotField: 'my field' }, 'honeypotField'],
  ])('rejects %s with 400 validation_failed', async (_name, body, path) => {
    const { projectId } = await projectWithKey(owner);
    const r = await owner.put(`/api/project/${projectId}/settings`, body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  it('an empty PUT ({}) changes nothing and answers the settings as they are', async () => {
    const { projectId } = await projectWithKey(owner);
    expect((await owner.put(`/api/project/${projectId}/settings`, { honeypotField: 'website' })).status).toBe(200);
    const r = await owner.put(`/api/project/${projectId}/settings`, {});
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ ...SETTINGS_DEFAULTS, honeypotField: 'website' });
    const t = await owner.put(`/api/project/${projectId}/templates`, {});
    expect(t.status).toBe(200);
    expect(t.body.data).toEqual((await owner.get(`/api/project/${projectId}/templates`)).body.data);
  });

  it("answers 404 for another user's project (get and put, even with a bad body) and 401 without a session", async () => {
    const { projectId } = await projectWithKey(owner);
    expect((await other.get(`/api/project/${projectId}/settings`)).status).toBe(404);
    expect((await other.put(`/api/project/${projectId}/settings`, { honeypotField: 'website' })).status).toBe(404);
    expect((await other.put(`/api/project/${projectId}/settings`, { bogus: 1 })).status).toBe(404);
    expect((await new Client(srv.url).get(`/api/project/${projectId}/settings`)).status).toBe(401);
    expect((await owner.get(`/api/project/prj_nope/settings`)).status).toBe(404);
    expect((await owner.get(`/api/project/${projectId}/settings`)).body.data).toEqual(SETTINGS_DEFAULTS);
  });
});

describe('honeypot field', () => {
  it('is an unknown field (400) until the project names it; filled → normal 201, nothing stored', async () => {
    const { projectId, slug, key } = await projectWithKey(owner);
    const before = await postJoin(srv.url, slug, key, { email: uniqueEmail(), website: '' });
    expect(before.status).toBe(400);
    expect(before.body.error.issues[0].path).toBe('website');

    await owner.put(`/api/project/${projectId}/settings`, { honeypotField: 'website' });
    const human = uniqueEmail('human');
    const ok = await postJoin(srv.url, slug, key, { email: human, website: '' });
    expect(ok.status).toBe(201);
    // A client that never sends the honeypot (a fetch() snippet, the CLI) still joins normally.
    const plain = uniqueEmail('plain');
    expect((await postJoin(srv.url, slug, key, { email: plain })).status).toBe(201);
    const bot = uniqueEmail('bot');
    const trapped = await postJoin(srv.url, slug, key, { email: bot, name: 'Bot', website: 'http://spam.example' });
    expect(trapped.status).toBe(201);
    expect(Object.keys(trapped.body.data).sort()).toEqual(Object.keys(ok.body.data).sort());
    expect(trapped.body.data.entryId).toMatch(/^ent_/);
    expect(trapped.body.data.email).toBe(bot);
    // Other truthy values count as filled too; the same bot email "joins" again without a 409.
    expect((await postJoin(srv.url, slug, key, { email: bot, website: 1 })).status).toBe(201);

    const list = await owner.get(`/api/project/${projectId}/waitlist`);
    expect(list.body.data.items.map((e: { email: string }) => e.email)).toEqual([plain, human]);
    expect((await owner.get(`/api/project/${projectId}/waitlist/${trapped.body.data.entryId}`)).status).toBe(404);
    // Still strict about everything else, and the body is still validated.
    expect((await postJoin(srv.url, slug, key, { email: uniqueEmail(), website: '', url: 'x' })).status).toBe(400);
    expect((await postJoin(srv.url, slug, key, { email: 'not-an-email', website: 'x' })).status).toBe(400);
  });
});

describe('disposable email domains', () => {
  it('are accepted by default and refused with 400 on email when the project turns the blocklist on', async () => {
    const { projectId, slug, key } = await projectWithKey(owner);
    expect((await postJoin(srv.url, slug, key, { email: 'first@mailinator.com' })).status).toBe(201);
    await owner.put(`/api/project/${projectId}/settings`, { blockDisposableEmails: true });
    for (const email of ['someone@mailinator.com', 'x@sub.mailinator.com', '  Upper@MAILINATOR.COM ']) {
      const r = await postJoin(srv.url, slug, key, { email });
      expect(r.status, email).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.issues).toEqual([{ path: 'email', message: expect.stringMatching(/disposable/i) }]);
    }
    expect((await postJoin(srv.url, slug, key, { email: uniqueEmail() })).status).toBe(201);
    expect((await postJoin(srv.url, slug, key, { email: 'ok@gmail.com' })).status).toBe(201);
  });
});

describe('allowed origins', () => {
  const preflight = (slug: string, origin: string) =>
    fetch(`${srv.url}/v1/waitlist/${slug}/join`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });

  it('any origin by default: ACAO * on preflight, success and errors', async () => {
    const { slug, key } = await projectWithKey(owner);
    const pre = await preflight(slug, 'https://anywhere.example');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    const ok = await postJoin(srv.url, slug, key, { email: uniqueEmail() }, { origin: 'https://anywhere.example' });
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/Retry-After.*RateLimit.*RateLimit-Policy/);
    const bad = await postJoin(srv.url, slug, 'wl_nope', { email: uniqueEmail() }, { origin: 'https://anywhere.example' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('with a list: echoes an allowed origin (Vary: Origin), withholds approval from others and refuses their joins', async () => {
    const { projectId, slug, key } = await projectWithKey(owner);
    await owner.put(`/api/project/${projectId}/settings`, { allowedOrigins: ['https://shop.example.com'] });

    const good = await preflight(slug, 'https://shop.example.com');
    expect(good.status).toBe(204);
    expect(good.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(good.headers.get('vary')).toMatch(/Origin/);
    const evil = await preflight(slug, 'https://evil.example');
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect(evil.headers.get('access-control-allow-methods')).toBeNull();

    const allowed = await postJoin(srv.url, slug, key, { email: uniqueEmail() }, { origin: 'https://shop.example.com' });
    expect(allowed.status).toBe(201);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    const refusedEmail = uniqueEmail('evil');
    const refused = await postJoin(srv.url, slug, key, { email: refusedEmail }, { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    // Server-to-server calls carry no Origin and are not a browser's cross-origin request.
    expect((await postJoin(srv.url, slug, key, { email: uniqueEmail() })).status).toBe(201);
    const list = await owner.get(`/api/project/${projectId}/waitlist?search=evil`);
    expect(list.body.data.total).toBe(0);
  });

  it('an unknown slug still answers the preflight (the POST then says 404)', async () => {
    const pre = await preflight('no-such-waitlist', 'https://a.example');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });
});
