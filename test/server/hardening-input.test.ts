// Hostile input over HTTP: oversized, lying and endless bodies, prototype-pollution keys, NUL/CRLF,
// unicode and overlong emails, LIKE wildcards in search, and the headers every response carries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, postJoin, projectWithKey, signedUp, uniqueEmail, type Client } from '../helpers/server.js';
import { startApp, type InProcessServer } from '../helpers/app.js';
import { raw, rawJson } from '../helpers/raw.js';

let srv: InProcessServer;
let owner: Client;
let p: Awaited<ReturnType<typeof projectWithKey>>;

beforeAll(async () => {
  srv = await startApp();
  owner = await signedUp(srv.url);
  p = await projectWithKey(owner, 'Input');
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

const host = () => new URL(srv.url).host;
const joinHead = (extra: string) =>
  `POST /v1/waitlist/${p.slug}/join HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${p.key}\r\n` +
  `Content-Type: application/json\r\n${extra}\r\n`;
const entries = async (search?: string) =>
  (await owner.get(`/api/project/${p.projectId}/waitlist?limit=100${search === undefined ? '' : `&search=${encodeURIComponent(search)}`}`))
    .body.data;

describe('bodies', () => {
  it('413 for a declared Content-Length over 16 KiB, before reading it', async () => {
    const r = await raw(srv.url, joinHead('Content-Length: 10000000000\r\n'), { waitMs: 3000 });
    expect(r.status).toBe(413);
    expect(rawJson(r.text).error.code).toBe('payload_too_large');
    expect(r.closed).toBe(true);
  });

  it('413 for a 17 KiB JSON body sent with fetch', async () => {
    const r = await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail(), name: 'x'.repeat(17 * 1024) });
    expect(r.status).toBe(413);
  });

  it('cuts an endless chunked body at 16 KiB and closes the connection', async () => {
    const chunk = `400\r\n${'a'.repeat(0x400)}\r\n`; // 1 KiB chunks, forever
    const r = await raw(srv.url, joinHead('Transfer-Encoding: chunked\r\n') + 'a\r\n{"email":"\r\n', {
      feed: () => chunk,
      everyMs: 2,
      waitMs: 8000,
    });
    expect(r.status).toBe(413);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(5000);
  });

  it('a Content-Length shorter than the body: the extra bytes never become a 5xx', async () => {
    const body = JSON.stringify({ email: uniqueEmail() });
    const r = await raw(srv.url, joinHead(`Content-Length: 5\r\n`) + body + 'x'.repeat(20_000), { waitMs: 3000 });
    expect(r.status).toBe(400);
    expect(r.text).not.toMatch(/HTTP\/1\.1 5\d\d/);
  });

  it('a Content-Length longer than the body: the request times out, nothing is stored', async () => {
    const email = uniqueEmail('short');
    const r = await raw(srv.url, joinHead('Content-Length: 1000\r\n') + JSON.stringify({ email }), { waitMs: 1500 });
    expect(r.text).not.toMatch(/HTTP\/1\.1 (2|5)\d\d/);
    expect((await entries(email)).total).toBe(0);
  });

  it('a small chunked body is read normally', async () => {
    const body = JSON.stringify({ email: uniqueEmail('chunked') });
    const r = await raw(
      srv.url,
      joinHead('Transfer-Encoding: chunked\r\nConnection: close\r\n') + `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(r.status).toBe(201);
  });
});

describe('prototype-pollution keys', () => {
  it('top-level __proto__ / constructor / prototype in a join body are unknown fields (400)', async () => {
    for (const k of ['__proto__', 'constructor', 'prototype']) {
      const r = await postJoin(srv.url, p.slug, p.key, `{"email":"${uniqueEmail()}","${k}":{"polluted":true}}`);
      expect(r.status, k).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.issues[0].path).toBe(k);
    }
  });

  it('in metadata they are plain data: nothing is polluted and the server keeps working', async () => {
    const email = uniqueEmail('proto');
    const r = await postJoin(
      srv.url,
      p.slug,
      p.key,
      `{"email":"${email}","metadata":{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}},"nested":{"__proto__":{"x":1}}}}`,
    );
    expect(r.status).toBe(201);
    const e = (await entries(email)).items[0];
    expect(e.metadata.constructor).toEqual({ prototype: { isAdmin: true } });
    expect(e.metadata.nested).toEqual(JSON.parse('{"__proto__":{"x":1}}'));
    // Kept as plain data (an own property), exactly as sent; no prototype is touched.
    expect(Object.hasOwn(e.metadata, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(e.metadata)).toBe(Object.prototype);
    expect(e.metadata.isAdmin).toBeUndefined();
    expect(e.isAdmin).toBeUndefined();
    // Update path too.
    const u = await owner.put(`/api/project/${p.projectId}/waitlist/${e.entryId}`, JSON.parse('{"metadata":{"__proto__":{"a":1},"k":1}}'));
    expect(u.status).toBe(200);
    expect(u.body.data.metadata).toEqual(JSON.parse('{"__proto__":{"a":1},"k":1}'));
    expect(u.body.data.metadata.a).toBeUndefined();
    expect((await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail() })).status).toBe(201);
    expect((await owner.get('/api/auth/me')).body.data.isAdmin).toBeUndefined();
  });
});

describe('control characters', () => {
  it('NUL in a stored text field is refused with 400, never a 500 (PostgreSQL cannot store it)', async () => {
    for (const body of [
      { email: uniqueEmail(), name: 'a\u0000b' },
      { email: uniqueEmail(), source: 'ads\u0000' },
      { email: `${uniqueEmail()}\u0000` },
    ]) {
      const r = await postJoin(srv.url, p.slug, p.key, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
    }
    const m = await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail('nulmeta'), metadata: { k: 'a\u0000b', 'n\u0000': 1 } });
    expect(m.status).toBe(201); // metadata is stored as JSON text, where NUL is escaped
    const e = (await entries('nulmeta')).items[0];
    expect(e.metadata).toEqual({ k: 'a\u0000b', 'n\u0000': 1 });
    const pr = await owner.post('/api/project', { name: 'bad\u0000name' });
    expect(pr.status).toBe(400);
  });

  it('CR/LF in names round-trip as data; in headers they never reach the server', async () => {
    const email = uniqueEmail('crlf');
    const name = 'line1\r\nSet-Cookie: evil=1\r\n';
    const r = await postJoin(srv.url, p.slug, p.key, { email, name, source: 'a\nb' });
    expect(r.status).toBe(201);
    expect(r.headers.get('set-cookie')).toBeNull();
    const e = (await entries(email)).items[0];
    expect(e.name).toBe(name.trim());
    expect(e.source).toBe('a\nb');
    const bad = await raw(srv.url, joinHead('X-Evil: a\rb\r\nContent-Length: 2\r\n') + '{}');
    expect(bad.status).toBe(400);
  });
});

describe('emails', () => {
  it('overlong emails are refused: 255+ chars, a 10 KB string', async () => {
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`; // 259
    for (const email of [long, `${'a'.repeat(255 - 12)}@example.com`, `${'x'.repeat(10_000)}@example.com`]) {
      const r = await postJoin(srv.url, p.slug, p.key, { email });
      expect(r.status).toBe(400);
      expect(r.body.error.issues[0].path).toBe('email');
    }
  });

  it('unicode: never a 5xx; accepted addresses round-trip exactly, names in any script are kept', async () => {
    const cases = [
      'üser@exämple.com',
      'user@xn--exmple-cua.com',
      '用户@例子.广告',
      'a\u200b@example.com',
      '😀@example.com',
      'café@example.com',
    ];
    for (const email of cases) {
      const r = await postJoin(srv.url, p.slug, p.key, { email, name: 'Zoë 山田 😀 \u202eevil' });
      expect([201, 400], email).toContain(r.status);
      if (r.status === 201) {
        const e = (await entries(email.slice(0, 5))).items.find((x: { email: string }) => x.email === email);
        expect(e?.name).toBe('Zoë 山田 😀 \u202eevil');
      }
    }
    expect((await postJoin(srv.url, p.slug, p.key, { email: 'user@xn--exmple-cua.com' })).status).toBe(409);
    const lone = await postJoin(srv.url, p.slug, p.key, `{"email":"${uniqueEmail()}","name":"\\ud800x"}`);
    expect(lone.status).toBeLessThan(500);
  });
});

describe('search', () => {
  it('% and _ match literally, not as LIKE wildcards', async () => {
    const tag = `w${Date.now()}`;
    await postJoin(srv.url, p.slug, p.key, { email: `${tag}-100pct@example.com`, name: '100% sure' });
    await postJoin(srv.url, p.slug, p.key, { email: `${tag}-under_score@example.com` });
    await postJoin(srv.url, p.slug, p.key, { email: `${tag}-underxscore@example.com` });
    await postJoin(srv.url, p.slug, p.key, { email: `${tag}-back@example.com`, name: 'a\\b' });
    expect((await entries('%')).items.map((e: { name: string }) => e.name)).toEqual(['100% sure']);
    const under = await entries(`${tag}-under_`);
    expect(under.items.map((e: { email: string }) => e.email)).toEqual([`${tag}-under_score@example.com`]);
    expect((await entries('_')).items.map((e: { email: string }) => e.email)).toEqual([`${tag}-under_score@example.com`]);
    expect((await entries('a\\b')).total).toBe(1);
    expect((await entries('%%')).total).toBe(0);
    expect((await entries(`${tag}%`)).total).toBe(0);
    const r = await owner.get(`/api/project/${p.projectId}/waitlist?search=%25'%20OR%201=1--`);
    expect(r.status).toBe(200);
    expect(r.body.data.total).toBe(0);
  });
});

describe('headers', () => {
  it('security headers on /api, join and unknown routes; Bearer challenge on join 401s', async () => {
    const api = await owner.get('/api/auth/me');
    expect(api.headers.get('cache-control')).toBe('no-store');
    expect(api.headers.get('x-content-type-options')).toBe('nosniff');
    expect(api.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(api.headers.get('x-request-id')).toMatch(/\S+-\S+/);
    const nf = await owner.get('/nope');
    expect(nf.headers.get('x-content-type-options')).toBe('nosniff');
    expect(nf.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    for (const auth of [undefined, 'wl_bogus', `${p.key.slice(0, -1)}${p.key.endsWith('x') ? 'y' : 'x'}`]) {
      const r = await postJoin(srv.url, p.slug, auth, { email: uniqueEmail() });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="waitlist"/);
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
    const other = await projectWithKey(owner);
    const wrong = await postJoin(srv.url, p.slug, other.key, { email: uniqueEmail() });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('request ids differ per request', async () => {
    const a = await owner.get('/healthz');
    const b = await owner.get('/healthz');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  /** The JSON body of a raw answer (after its headers). */
  const envelopeOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

  it('headers over 16 KiB are refused (431) in the error envelope, and the server keeps serving', async () => {
    const r = await raw(srv.url, `GET /healthz HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(r.text).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(envelopeOf(r.text)).toEqual({
      status: 'error',
      message: 'The request line and headers must be at most 16 KiB',
      error: { code: 'payload_too_large' },
      timestamp: expect.any(Number),
    });
    expect(r.closed).toBe(true);
    expect((await owner.get('/healthz')).status).toBe(200);
  });

  it('bytes that are not HTTP get 400 in the error envelope, and the connection closes', async () => {
    const r = await raw(srv.url, 'HELLO THERE\r\n\r\n');
    expect(r.status).toBe(400);
    expect(envelopeOf(r.text).error).toEqual({ code: 'bad_request' });
    expect(r.closed).toBe(true);
    expect((await owner.get('/healthz')).status).toBe(200);
  });
});
