// POST /v1/waitlist/:slug/join: every status code, the contract's order of checks, body limits,
// duplicates (also under concurrency), revoked keys, CORS and the 429 rate limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entrySchema } from '../../src/contract/responses.js';
import { assertNoSecretsLeaked, fails, issuePaths, ok, raw, ISO_RE } from '../helpers/api.js';
import { cleanup, postJoin, projectWithKey, signedUp, startServer, type Client, type TestServer, useServer } from '../helpers/server.js';

let owner: Client;
type PK = Awaited<ReturnType<typeof projectWithKey>>;
let A: PK; // the main project
let B: PK; // another project of the same owner
let revoked: string; // a revoked key of A
let D: PK; // a soft-deleted project with a still-live key

const BIG = 'x'.repeat(17 * 1024);

const srv = useServer();
beforeAll(async () => {
  owner = await signedUp(srv.url);
  A = await projectWithKey(owner, 'Join A');
  B = await projectWithKey(owner, 'Join B');
  D = await projectWithKey(owner, 'Join Deleted');
  const k = await owner.post(`/api/project/${A.projectId}/apikey`, { name: 'to revoke' });
  revoked = k.body.data.key;
  ok(await owner.del(`/api/project/${A.projectId}/apikey/${k.body.data.keyId}`));
  ok(await owner.del(`/api/project/${D.projectId}`));
});

let n = 0;
const email = (tag = 'j') => `${tag}-${++n}@example.com`;
const join = (slug: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  postJoin(srv.url, slug, key, body, headers);

describe('join: success', () => {
  it('201 with entryId, email and ISO createdAt; source defaults to landing-page', async () => {
    const e = email();
    const r = await join(A.slug, A.key, { email: e });
    const d = ok(r, 201);
    expect(d.entryId).toMatch(/^ent_[0-9A-Za-z]{10,}$/);
    expect(d.email).toBe(e);
    expect(d.createdAt).toMatch(ISO_RE);
    const got = ok(await owner.get(`/api/project/${A.projectId}/waitlist/${d.entryId}`));
    expect(got).toMatchObject({ email: e, source: 'landing-page', metadata: {}, name: null });
  });

  it('stores name, source, metadata, the socket IP and the User-Agent', async () => {
    const e = email();
    const meta = { plan: 'pro', tags: ['a', 'b'], nested: { n: 1 } };
    const r = await join(A.slug, A.key, { email: e, name: 'Ada', source: 'twitter', metadata: meta }, { 'user-agent': 'TestAgent/1.0' });
    const id = ok(r, 201).entryId;
    const got = ok(await owner.get(`/api/project/${A.projectId}/waitlist/${id}`));
    expect(got).toMatchObject({
      email: e,
      name: 'Ada',
      source: 'twitter',
      metadata: meta,
      ip: '127.0.0.1',
      userAgent: 'TestAgent/1.0',
      country: null,
    });
    // Exactly the contract's Entry fields, nothing the store keeps besides (token hashes, emailNorm, …).
    expect(Object.keys(got).sort()).toEqual(Object.keys(entrySchema.shape).sort());
  });

  it('trims the email and takes a charset parameter on the content type', async () => {
    const r = await join(A.slug, A.key, JSON.stringify({ email: '  spaced@example.com  ' }), {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(ok(r, 201).email).toBe('spaced@example.com');
  });

  it('accepts the limits exactly: email 254 chars, name 200, source 100, metadata 8192 bytes and depth 5', async () => {
    const long = `${'a'.repeat(64)}@${'b'.repeat(61)}.${'c'.repeat(61)}.${'d'.repeat(61)}.com`;
    expect(long.length).toBe(254);
    ok(await join(A.slug, A.key, { email: long, name: 'n'.repeat(200), source: 's'.repeat(100) }), 201);
    const pad = 'p'.repeat(8192 - JSON.stringify({ k: '' }).length);
    const meta = { k: pad };
    expect(Buffer.byteLength(JSON.stringify(meta))).toBe(8192);
    ok(await join(A.slug, A.key, { email: email(), metadata: meta }), 201);
    ok(await join(A.slug, A.key, { email: email(), metadata: { a: { b: { c: { d: { e: 1 } } } } } }), 201);
  });

  it('metadata keeps every key as sent, "__proto__" included', async () => {
    const r = await join(A.slug, A.key, '{"email":"proto@example.com","metadata":{"__proto__":{"x":1},"constructor":"c","a":1}}');
    const id = ok(r, 201).entryId;
    const got = await owner.get(`/api/project/${A.projectId}/waitlist/${id}`);
    expect(got.text).toContain('"metadata":{"__proto__":{"x":1},"constructor":"c","a":1}');
  });

  it('updates the key lastUsedAt', async () => {
    ok(await join(B.slug, B.key, { email: email() }), 201);
    const k = ok(await owner.get(`/api/project/${B.projectId}/apikey/${B.keyId}`));
    expect(k.lastUsedAt).toMatch(ISO_RE);
  });
});

describe('join: 401 for keys', () => {
  const cases: { name: string; auth?: () => string }[] = [
    { name: 'no Authorization header' },
    { name: 'empty Bearer', auth: () => 'Bearer ' },
    { name: 'Basic scheme', auth: () => `Basic ${Buffer.from('a:b').toString('base64')}` },
    { name: 'key without Bearer', auth: () => A.key },
    { name: 'malformed key', auth: () => 'Bearer wl_short' },
    { name: 'wrong prefix', auth: () => `Bearer xx_${A.key.slice(3)}` },
    { name: 'unknown well-formed key', auth: () => `Bearer wl_${'A'.repeat(A.key.length - 3)}` },
    { name: 'right lookup, wrong secret', auth: () => `Bearer ${A.key.slice(0, -1)}${A.key.endsWith('A') ? 'B' : 'A'}` },
    { name: 'revoked key', auth: () => `Bearer ${revoked}` },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const headers: Record<string, string> = c.auth ? { authorization: c.auth() } : {};
      const r = await join(A.slug, undefined, { email: email() }, headers);
      fails(r, 401, 'unauthorized');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    });
  }

  it('a key of another project → 401 (and nothing is written)', async () => {
    const e = email();
    fails(await join(B.slug, A.key, { email: e }), 401, 'unauthorized');
    const list = ok(await owner.get(`/api/project/${B.projectId}/waitlist?search=${encodeURIComponent(e)}`));
    expect(list.total).toBe(0);
  });

  it('a revoked key fails on the very next join (after it was used and cached)', async () => {
    const k = ok(await owner.post(`/api/project/${A.projectId}/apikey`, { name: 'short-lived' }), 201);
    ok(await join(A.slug, k.key, { email: email() }), 201);
    ok(await join(A.slug, k.key, { email: email() }), 201);
    ok(await owner.del(`/api/project/${A.projectId}/apikey/${k.keyId}`));
    fails(await join(A.slug, k.key, { email: email() }), 401, 'unauthorized');
  });
});

describe('join: order of checks', () => {
  const cases: {
    name: string;
    slug: () => string;
    key: () => string | undefined;
    body: () => unknown;
    headers?: Record<string, string>;
    status: number;
    code: string;
  }[] = [
    {
      name: 'missing key beats unknown slug',
      slug: () => 'no-such-slug',
      key: () => undefined,
      body: () => ({ email: email() }),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'malformed key beats unknown slug',
      slug: () => 'no-such-slug',
      key: () => 'wl_bad',
      body: () => ({ email: email() }),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'revoked key beats unknown slug',
      slug: () => 'no-such-slug',
      key: () => revoked,
      body: () => ({ email: email() }),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'missing key beats a bad body',
      slug: () => A.slug,
      key: () => undefined,
      body: () => '{bad',
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'revoked key beats oversized body',
      slug: () => A.slug,
      key: () => revoked,
      body: () => ({ email: email(), name: BIG }),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'valid key, unknown slug → 404',
      slug: () => 'no-such-slug',
      key: () => A.key,
      body: () => ({ email: email() }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'unknown slug beats bad JSON',
      slug: () => 'no-such-slug',
      key: () => A.key,
      body: () => '{bad',
      status: 404,
      code: 'not_found',
    },
    {
      name: 'unknown slug beats oversized body',
      slug: () => 'no-such-slug',
      key: () => A.key,
      body: () => ({ email: email(), name: BIG }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'live key of a soft-deleted project → 404',
      slug: () => D.slug,
      key: () => D.key,
      body: () => ({ email: email() }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'deleted project slug with another key → 404',
      slug: () => D.slug,
      key: () => A.key,
      body: () => ({ email: email() }),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'other-project key beats oversized body',
      slug: () => B.slug,
      key: () => A.key,
      body: () => ({ email: email(), name: BIG }),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'other-project key beats wrong content type',
      slug: () => B.slug,
      key: () => A.key,
      body: () => 'email=x',
      headers: { 'content-type': 'text/plain' },
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'other-project key beats bad JSON',
      slug: () => B.slug,
      key: () => A.key,
      body: () => '{bad',
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'other-project key beats invalid fields',
      slug: () => B.slug,
      key: () => A.key,
      body: () => ({ email: 'nope' }),
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'oversized body → 413',
      slug: () => A.slug,
      key: () => A.key,
      body: () => ({ email: email(), name: BIG }),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: 'oversized body beats wrong content type',
      slug: () => A.slug,
      key: () => A.key,
      body: () => BIG,
      headers: { 'content-type': 'text/plain' },
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: 'text/plain → 415',
      slug: () => A.slug,
      key: () => A.key,
      body: () => JSON.stringify({ email: email() }),
      headers: { 'content-type': 'text/plain' },
      status: 415,
      code: 'unsupported_media_type',
    },
    // application/x-www-form-urlencoded is a plain form post now (LIFECYCLE.md; test/server/surface-forms.test.ts); multipart is not.
    {
      name: 'multipart form → 415',
      slug: () => A.slug,
      key: () => A.key,
      body: () => '--x\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'wrong content type beats bad JSON',
      slug: () => A.slug,
      key: () => A.key,
      body: () => '{bad',
      headers: { 'content-type': 'text/plain' },
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'bad JSON → 400 invalid_json',
      slug: () => A.slug,
      key: () => A.key,
      body: () => '{"email": ',
      status: 400,
      code: 'invalid_json',
    },
    { name: 'empty body → 400 invalid_json', slug: () => A.slug, key: () => A.key, body: () => '', status: 400, code: 'invalid_json' },
    {
      name: 'bad JSON beats a duplicate email',
      slug: () => A.slug,
      key: () => A.key,
      body: () => `{"email":"dup-order@example.com",}`,
      status: 400,
      code: 'invalid_json',
    },
    {
      name: 'invalid fields beat a duplicate email',
      slug: () => A.slug,
      key: () => A.key,
      body: () => ({ email: 'dup-order@example.com', extra: 1 }),
      status: 400,
      code: 'validation_failed',
    },
    {
      name: 'duplicate → 409',
      slug: () => A.slug,
      key: () => A.key,
      body: () => ({ email: 'dup-order@example.com' }),
      status: 409,
      code: 'email_taken',
    },
  ];

  beforeAll(async () => {
    ok(await join(A.slug, A.key, { email: 'dup-order@example.com' }), 201);
  });

  for (const c of cases) {
    it(`${c.name} (${c.status})`, async () => {
      const body = c.body();
      const r = await join(c.slug(), c.key(), body, c.headers ?? {});
      fails(r, c.status, c.code);
      // The join takes form posts too, and its 415 says so.
      if (c.status === 415)
        expect(r.body.message).toBe('Content-Type must be application/json, or a form post (application/x-www-form-urlencoded)');
    });
  }
});

describe('join: body validation names the field', () => {
  const deep = (levels: number): unknown => (levels === 0 ? 1 : { x: deep(levels - 1) });
  const cases: { name: string; body: () => unknown; path: string }[] = [
    { name: 'missing email', body: () => ({ name: 'x' }), path: 'email' },
    { name: 'invalid email', body: () => ({ email: 'not-an-email' }), path: 'email' },
    { name: 'email not a string', body: () => ({ email: 42 }), path: 'email' },
    {
      name: 'email of 255 chars',
      body: () => ({ email: `${'a'.repeat(64)}@${'b'.repeat(62)}.${'c'.repeat(61)}.${'d'.repeat(61)}.com` }),
      path: 'email',
    },
    { name: 'name of 201 chars', body: () => ({ email: email(), name: 'n'.repeat(201) }), path: 'name' },
    { name: 'name not a string', body: () => ({ email: email(), name: 5 }), path: 'name' },
    { name: 'source of 101 chars', body: () => ({ email: email(), source: 's'.repeat(101) }), path: 'source' },
    { name: 'metadata is an array', body: () => ({ email: email(), metadata: [1, 2] }), path: 'metadata' },
    { name: 'metadata is a string', body: () => ({ email: email(), metadata: 'x' }), path: 'metadata' },
    { name: 'metadata is null', body: () => ({ email: email(), metadata: null }), path: 'metadata' },
    { name: 'metadata over 8 KiB', body: () => ({ email: email(), metadata: { k: 'p'.repeat(8192 - 7) } }), path: 'metadata' },
    { name: 'metadata nested 6 levels', body: () => ({ email: email(), metadata: deep(6) }), path: 'metadata' },
    {
      name: 'metadata nested 6 levels through arrays',
      body: () => ({ email: email(), metadata: { a: [[[[{ b: 1 }]]]] } }),
      path: 'metadata',
    },
    { name: 'unknown top-level field', body: () => ({ email: email(), referrer: 'x' }), path: 'referrer' },
    { name: 'server-set field ip', body: () => ({ email: email(), ip: '1.2.3.4' }), path: 'ip' },
  ];
  for (const c of cases) {
    it(`${c.name} → 400 at "${c.path}"`, async () => {
      const paths = issuePaths(await join(A.slug, A.key, c.body()));
      expect(paths).toContain(c.path);
    });
  }

  it.each([1000, 8000])('metadata nested %i levels deep (within 16 KiB) → 400, not a 500', async (depth) => {
    const body = `{"email":"deep@example.com","metadata":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    expect(issuePaths(await join(A.slug, A.key, body))).toEqual(['metadata']);
  });

  it('a metadata number too large for a double (1e400 parses as Infinity) → 400 naming it, not stored as null', async () => {
    const body = `{"email":"inf@example.com","metadata":{"n":1,"deep":{"list":[2,-1e400]}}}`;
    const r = await join(A.slug, A.key, body);
    expect(issuePaths(r)).toEqual(['metadata.deep.list.1']); // the number's own path, as for a lone surrogate
    expect(r.body.error.issues[0].message).toBe('metadata.deep.list.1 is a number too large to store (like 1e400)');
    fails(
      await owner.put(
        `/api/project/${A.projectId}/waitlist/${ok(await join(A.slug, A.key, { email: email() }), 201).entryId}`,
        '{"metadata":{"n":1e400}}',
      ),
      400,
      'validation_failed',
    );
  });

  it('several bad fields → one issue each', async () => {
    const paths = issuePaths(await join(A.slug, A.key, { email: 'bad', name: 'n'.repeat(201), extra: true }));
    expect(paths.sort()).toEqual(['email', 'extra', 'name']);
  });

  it('a JSON array or scalar body → 400 validation_failed', async () => {
    fails(await join(A.slug, A.key, '[{"email":"arr@example.com"}]'), 400, 'validation_failed');
    fails(await join(A.slug, A.key, '"arr@example.com"'), 400, 'validation_failed');
  });

  it('nothing is written for rejected bodies', async () => {
    const list = ok(await owner.get(`/api/project/${A.projectId}/waitlist?search=arr%40example.com`));
    expect(list.total).toBe(0);
  });
});

describe('join: oversized bodies over raw HTTP', () => {
  const auth = () => ({ authorization: `Bearer ${A.key}`, 'content-type': 'application/json' });

  it('chunked body over 16 KiB without Content-Length → 413', async () => {
    const chunks = [`{"email":"chunk@example.com","name":"`, 'y'.repeat(9000), 'y'.repeat(9000), '"}'];
    const r = await raw(srv.url, 'POST', `/v1/waitlist/${A.slug}/join`, { headers: auth(), chunks });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
  });

  it('many small chunks adding up past 16 KiB → 413', async () => {
    const chunks = Array.from({ length: 20 }, (_, i) => (i === 0 ? '{"email":"c2@example.com","name":"' : 'z'.repeat(1000)));
    const r = await raw(srv.url, 'POST', `/v1/waitlist/${A.slug}/join`, { headers: auth(), chunks });
    expect(r.status).toBe(413);
  });

  it('chunked body under the limit works', async () => {
    const chunks = ['{"email":"chunk-ok@', 'example.com"}'];
    const r = await raw(srv.url, 'POST', `/v1/waitlist/${A.slug}/join`, { headers: auth(), chunks });
    expect(r.status).toBe(201);
  });

  it('exactly 16 KiB is accepted by size (fails only on field rules)', async () => {
    const prefix = '{"email":"edge@example.com","metadata":{"k":"';
    const body = prefix + 'q'.repeat(16 * 1024 - prefix.length - 3) + '"}}';
    expect(Buffer.byteLength(body)).toBe(16 * 1024);
    const r = await raw(srv.url, 'POST', `/v1/waitlist/${A.slug}/join`, { headers: auth(), body });
    expect(r.status).toBe(400); // metadata > 8 KiB, but not 413
    expect(r.body.error.code).toBe('validation_failed');
  });

  it('the server stays healthy after oversized requests', async () => {
    ok(await join(A.slug, A.key, { email: email() }), 201);
  });
});

describe('join: duplicates', () => {
  it.each([
    ['same email', 'dupe@example.com', 'dupe@example.com'],
    ['different case', 'Case.Dupe@Example.com', 'case.dupe@example.COM'],
    ['surrounding whitespace', 'ws.dupe@example.com', '  ws.dupe@example.com\t'],
  ])('%s → 409 email_taken, nothing written', async (_n, first, second) => {
    ok(await join(A.slug, A.key, { email: first }), 201);
    fails(await join(A.slug, A.key, { email: second, name: 'Second' }), 409, 'email_taken');
    const list = ok(await owner.get(`/api/project/${A.projectId}/waitlist?search=${encodeURIComponent(first.trim().toLowerCase())}`));
    expect(list.total).toBe(1);
    expect(list.items[0].name).toBeNull();
  });

  it('the same email in another project is fine', async () => {
    ok(await join(A.slug, A.key, { email: 'both@example.com' }), 201);
    ok(await join(B.slug, B.key, { email: 'both@example.com' }), 201);
  });

  it('40 concurrent identical joins → exactly one 201 and 39 × 409', async () => {
    const e = 'race@example.com';
    const rs = await Promise.all(Array.from({ length: 40 }, () => join(A.slug, A.key, { email: e })));
    const codes = rs.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(39);
    for (const r of rs.filter((x) => x.status === 409)) fails(r, 409, 'email_taken');
    const list = ok(await owner.get(`/api/project/${A.projectId}/waitlist?search=race%40example.com`));
    expect(list.total).toBe(1);
  });

  it('40 concurrent joins differing only in case and whitespace → exactly one 201', async () => {
    const variants = Array.from({ length: 40 }, (_, i) => {
      const base = 'Race2@Example.com';
      const cased = [...base].map((ch, j) => ((i >> (j % 5)) & 1 ? ch.toUpperCase() : ch.toLowerCase())).join('');
      return `${' '.repeat(i % 3)}${cased}${' '.repeat(i % 2)}`;
    });
    const rs = await Promise.all(variants.map((e) => join(A.slug, A.key, { email: e })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 409)).toHaveLength(39);
  });

  it('a burst with a never-used key costs about one bcrypt, not one per request', async () => {
    const burst = async (key: string, tag: string) => {
      const t = Date.now();
      const rs = await Promise.all(Array.from({ length: 80 }, (_, i) => join(A.slug, key, { email: `${tag}-${i}@example.com` })));
      expect(rs.map((r) => r.status)).toEqual(Array(80).fill(201));
      return Date.now() - t;
    };
    const fresh = ok(await owner.post(`/api/project/${A.projectId}/apikey`, { name: 'cold' }), 201).key;
    const cold = await burst(fresh, 'cold');
    const warm = await burst(fresh, 'warm');
    // 80 bcrypt comparisons at cost 10 take seconds on two cores; one takes ~0.1 s.
    expect(cold).toBeLessThan(warm * 2 + 1500);
  });

  it('40 concurrent distinct joins → 40 × 201', async () => {
    const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => join(B.slug, B.key, { email: `many-${i}@example.com` })));
    expect(rs.map((r) => r.status)).toEqual(Array(40).fill(201));
    const list = ok(await owner.get(`/api/project/${B.projectId}/waitlist?search=many-&limit=100`));
    expect(list.total).toBe(40);
  });
});

describe('join: CORS', () => {
  it('answers the preflight from any origin', async () => {
    const r = await raw(srv.url, 'OPTIONS', `/v1/waitlist/${A.slug}/join`, {
      headers: {
        origin: 'https://landing.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(r.status).toBeGreaterThanOrEqual(200);
    expect(r.status).toBeLessThan(300);
    expect(r.headers['access-control-allow-origin']).toMatch(/^(\*|https:\/\/landing\.example)$/);
    expect(String(r.headers['access-control-allow-methods'])).toMatch(/POST/);
    expect(String(r.headers['access-control-allow-headers']).toLowerCase()).toMatch(/authorization/);
    expect(String(r.headers['access-control-allow-headers']).toLowerCase()).toMatch(/content-type/);
  });

  it('a cross-origin join gets Access-Control-Allow-Origin on 201 and on errors', async () => {
    const origin = { origin: 'https://landing.example' };
    const r = await join(A.slug, A.key, { email: email() }, origin);
    expect(r.status).toBe(201);
    expect(r.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/landing\.example)$/);
    const e = await join('no-such-slug', A.key, { email: email() }, origin);
    expect(e.status).toBe(404);
    expect(e.headers.get('access-control-allow-origin')).toMatch(/^(\*|https:\/\/landing\.example)$/);
  });

  it('/api sends no CORS headers', async () => {
    const r = await owner.get('/api/project');
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('join: unknown methods and paths', () => {
  it('GET on the join path → 404 envelope', async () => {
    fails(await owner.get(`/v1/waitlist/${A.slug}/join`), 404, 'not_found');
  });
  it('join without a slug → 404 envelope', async () => {
    fails(await join('', A.key, { email: email() }), 404, 'not_found');
  });
});

describe('join: rate limit', () => {
  let limited: TestServer;
  let ls: PK;
  let ls2: PK;
  beforeAll(async () => {
    limited = await startServer({ env: { WAITLIST_RATE_LIMIT: 'on', WAITLIST_JOIN_LIMIT: '3', WAITLIST_JOIN_WINDOW: '60' } });
    const c = await signedUp(limited.url);
    ls = await projectWithKey(c, 'Limited');
    ls2 = await projectWithKey(c, 'Limited Two');
  });
  afterAll(async () => {
    await limited.stop();
    cleanup(limited);
  });

  it('too many joins from one IP to one project → 429 rate_limited with Retry-After', async () => {
    for (let i = 0; i < 3; i++) ok(await postJoin(limited.url, ls.slug, ls.key, { email: `rl-${i}@example.com` }), 201);
    const r = await postJoin(limited.url, ls.slug, ls.key, { email: 'rl-x@example.com' });
    fails(r, 429, 'rate_limited');
    const retry = r.headers.get('retry-after');
    expect(retry).toMatch(/^\d+$/);
    expect(Number(retry)).toBeGreaterThanOrEqual(1);
    expect(Number(retry)).toBeLessThanOrEqual(60);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('the limit is per project', async () => {
    ok(await postJoin(limited.url, ls2.slug, ls2.key, { email: 'rl-other@example.com' }), 201);
  });
});

describe('no secrets in any response', () => {
  it('no response body or header held a full key or a bcrypt hash', () => {
    const { scanned, keys } = assertNoSecretsLeaked();
    expect(scanned).toBeGreaterThan(100);
    expect(keys).toBeGreaterThanOrEqual(5);
  });
});
