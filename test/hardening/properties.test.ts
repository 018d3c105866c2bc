// Property-based tests through real HTTP (fast-check): generated join bodies, headers, paths and list
// queries never get a 5xx, never lose the connection, and only ever get the contract's status codes
// and envelope. At least 10,000 generated cases run in the default `npm test` (count printed).
import fc from 'fast-check';
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../src/contract/types.js';
import { cleanup, projectWithKey, signedUp, startServer, type Client, type TestServer } from '../helpers/server.js';

const PARALLEL = Number(process.env.FC_PARALLEL ?? 8); // concurrent fc.assert runs (distinct seeds), one server
const RUNS = { join: 6000, headers: 4000, lists: 4000 };
const SEED = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);

let srv: TestServer;
let owner: Client;
let plain: Awaited<ReturnType<typeof projectWithKey>>;
let guarded: Awaited<ReturnType<typeof projectWithKey>>;
const agent = new Agent({ keepAlive: true, maxSockets: PARALLEL * 2 });
let executed = 0;
const statuses = new Map<number, number>();

beforeAll(async () => {
  srv = await startServer();
  owner = await signedUp(srv.url);
  plain = await projectWithKey(owner, 'Plain');
  guarded = await projectWithKey(owner, 'Guarded');
  const s = await owner.put(`/api/project/${guarded.projectId}/settings`, {
    honeypotField: 'website',
    blockDisposableEmails: true,
    allowedOrigins: ['https://ok.example'],
  });
  expect(s.status).toBe(200);
  // A few entries so list queries have something to page and search through.
  for (const [email, name] of [
    ['ann@example.com', 'Ann 100%'],
    ['bob_x@example.com', 'Bob'],
    ['zoë@example.com', 'Zoë'],
  ]) {
    await fetch(`${srv.url}/v1/waitlist/${plain.slug}/join`, {
      method: 'POST',
      headers: { authorization: `Bearer ${plain.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email, name }),
    });
  }
});
afterAll(async () => {
  agent.destroy();
  const hist = [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([k, v]) => `${k}×${v}`)
    .join(' ');
  console.log(`[properties] ${executed} generated HTTP cases ran (seed ${SEED}); statuses: ${hist}`);
  await srv.stop();
  cleanup(srv);
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One HTTP request with exact control over method, path, headers and body bytes; rejects on a dropped connection. */
function send(method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const u = new URL(srv.url);
    // Node's client frames no body for DELETE/OPTIONS unless told its length.
    if (body !== undefined) headers = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = request({ host: u.hostname, port: u.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The error codes these routes may answer, each with its status from the contract (no invite or SMTP codes, no 5xx). */
const EXPECTED_CODES: ErrorCode[] = [
  'invalid_json',
  'validation_failed',
  'unauthorized',
  'forbidden',
  'signup_closed',
  'not_found',
  'email_taken',
  'slug_taken',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
];
const ERROR_CODES: Record<string, number> = Object.fromEntries(EXPECTED_CODES.map((code) => [code, ERROR_STATUS[code]]));

/** The reply is a contract envelope with a status from `allowed` (never 5xx). */
function checkEnvelope(r: Reply, allowed: number[], ctx: unknown, path = '') {
  const where = JSON.stringify(ctx).slice(0, 500);
  if (r.status >= 500 || !allowed.includes(r.status)) throw new Error(`status ${r.status} for ${where}: ${r.text.slice(0, 300)}`);
  if (r.status === 204 || (r.status === 200 && /\/export$/.test(path.split('?')[0]!))) return; // no content / a file
  if (!String(r.headers['content-type']).startsWith('application/json')) {
    if (r.status === 200) return; // export / dashboard bodies
    throw new Error(`non-JSON ${r.status} for ${where}`);
  }
  const env = JSON.parse(r.text) as { status: string; timestamp: number; error?: { code: string }; data?: unknown };
  if (!Number.isInteger(env.timestamp)) throw new Error(`bad timestamp for ${where}`);
  if (r.status < 400) {
    if (env.status !== 'success' || !('data' in env)) throw new Error(`bad success envelope for ${where}`);
  } else if (env.status !== 'error' || ERROR_CODES[env.error?.code ?? ''] !== r.status) {
    throw new Error(`bad error envelope ${r.status} ${r.text.slice(0, 200)} for ${where}`);
  }
}

/** Runs `total` cases of a property as PARALLEL concurrent fc.assert runs with distinct seeds. */
async function runParallel<T>(arb: fc.Arbitrary<T>, total: number, check: (v: T) => Promise<void>) {
  const prop = fc.asyncProperty(arb, async (v) => {
    executed++;
    await check(v);
  });
  await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) =>
      fc.assert(prop, { numRuns: Math.ceil(total / PARALLEL), seed: SEED + i, endOnFailure: true }),
    ),
  );
}

// ---- generators ----
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '\r\n', '%', '_', '\\', "' OR 1=1--", '<script>', '𝔘𝔫𝔦', '\ud800'),
);
const email = fc.oneof(
  fc.emailAddress(),
  fc.emailAddress().map((e) => `  ${e.toUpperCase()} `),
  fc.constantFrom('a@mailinator.com', 'x@example.com', 'user@xn--exmple-cua.com', 'üser@exämple.com', `${'a'.repeat(250)}@x.io`),
  text.map((t) => `${t}@example.com`),
  text,
);
const jsonish = fc.jsonValue({ maxDepth: 7 });
const fieldKey = fc.oneof(
  fc.constantFrom('email', 'name', 'source', 'metadata', 'website', '__proto__', 'constructor', 'prototype', 'toString'),
  fc.string({ maxLength: 10 }),
);
const joinObject = fc
  .record(
    {
      email: fc.oneof(email, jsonish),
      name: fc.oneof(text, jsonish),
      source: fc.oneof(text, fc.constantFrom('ads', 'x'.repeat(101))),
      metadata: fc.oneof(fc.object({ maxDepth: 6, key: fieldKey }), jsonish, fc.constant({ big: 'x'.repeat(9000) })),
      website: fc.oneof(fc.constant(''), text, jsonish),
    },
    { requiredKeys: [] },
  )
  .chain((o) => fc.dictionary(fieldKey, jsonish, { maxKeys: 2 }).map((extra) => ({ ...extra, ...o })));
let unique = 0;
// Mostly-valid bodies, so plenty of joins get through to the database (201, then 409 on repeats).
const validJoin = fc
  .record(
    {
      email: fc.oneof(
        fc.constantFrom('a', 'b.c', 'x+tag', 'Ünï').map((l) => `${l}${++unique}@example.com`),
        fc.constantFrom('a', 'b.c', 'x+tag').map((l) => `${l}${++unique}@example.com`),
        fc.emailAddress(),
        fc.constantFrom('repeat@example.com', ' REPEAT@example.com '),
      ),
      name: fc.string({ maxLength: 50 }),
      source: fc.string({ minLength: 1, maxLength: 30 }),
      metadata: fc.object({ maxDepth: 3, maxKeys: 4 }),
    },
    { requiredKeys: ['email'] },
  )
  .map((o) => JSON.stringify(o));
const joinBody = fc.oneof(
  { weight: 8, arbitrary: validJoin },
  { weight: 6, arbitrary: joinObject.map((o) => JSON.stringify(o)) },
  { weight: 1, arbitrary: fc.json() },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{"email":', '[]', 'null', '{"__proto__":{"x":1}}', '\u0000', '{"email":"a@b.co"}{}') },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 16_000, max: 40_000 }).map((n) => JSON.stringify({ email: 'big@example.com', name: 'x'.repeat(n) })),
  },
);

// 14,000 requests: minutes, not seconds, when the whole suite shares two cores with it.
describe('generated input over HTTP', { timeout: 240_000 }, () => {
  it(`join bodies, keys, slugs and content types (${RUNS.join} cases)`, async () => {
    const arb = fc.record({
      project: fc.constantFrom('plain', 'plain', 'guarded', 'guarded', 'unknown'),
      key: fc.constantFrom('own', 'own', 'own', 'own', 'own', 'other', 'none', 'garbage', 'lowercase-bearer'),
      type: fc.constantFrom(
        'application/json',
        'application/json',
        'application/json; charset=utf-8',
        'application/merge-patch+json',
        'text/plain',
        'none',
      ),
      origin: fc.constantFrom(undefined, undefined, undefined, 'https://ok.example', 'https://evil.example', 'null'),
      body: joinBody,
    });
    await runParallel(arb, RUNS.join, async (c) => {
      const p = c.project === 'guarded' ? guarded : plain;
      const slug = c.project === 'unknown' ? 'no-such-waitlist' : p.slug;
      const headers: Record<string, string> = {};
      const key = { own: p.key, other: (p === plain ? guarded : plain).key, garbage: 'wl_garbage', none: '', 'lowercase-bearer': p.key }[
        c.key
      ];
      if (key) headers.authorization = `${c.key === 'lowercase-bearer' ? 'bearer' : 'Bearer'} ${key}`;
      if (c.type !== 'none') headers['content-type'] = c.type;
      if (c.origin) headers.origin = c.origin;
      const r = await send('POST', `/v1/waitlist/${slug}/join`, headers, c.body);
      checkEnvelope(r, [201, 400, 401, 403, 404, 409, 413, 415], c);
      if (r.status === 201) {
        const data = JSON.parse(r.text).data as Record<string, unknown>;
        if (!String(data.entryId).startsWith('ent_') || typeof data.email !== 'string') throw new Error(`bad 201 data ${r.text}`);
      }
      if (c.key === 'none' && r.status !== 401) throw new Error('join without a key must be 401');
    });
  });

  it(`arbitrary headers, methods and paths (${RUNS.headers} cases)`, async () => {
    const headerValue = fc.string({
      unit: fc
        .integer({ min: 0x20, max: 0xff })
        .filter((n) => n !== 0x7f)
        .map((n) => String.fromCharCode(n)),
      maxLength: 80,
    });
    const tokenChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~".split(''));
    const headerName = fc.oneof(
      fc.constantFrom(
        'authorization',
        'cookie',
        'origin',
        'content-type',
        'x-forwarded-for',
        'x-forwarded-proto',
        'user-agent',
        'accept',
        'x-request-id',
        'range',
        'if-none-match',
      ),
      fc.string({ unit: tokenChar, minLength: 1, maxLength: 20 }),
    );
    const pathSeg = fc.oneof(
      fc.constantFrom(
        'api',
        'project',
        'auth',
        'me',
        'login',
        'waitlist',
        'apikey',
        'stats',
        'export',
        'settings',
        'v1',
        'join',
        '..',
        '%2e%2e',
        '%00',
        plain.projectId,
        plain.slug,
      ),
      fc.string({ unit: tokenChar, maxLength: 12 }).map(encodeURIComponent),
    );
    const arb = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      path: fc.array(pathSeg, { maxLength: 6 }).map((s) => `/${s.join('/')}`),
      headers: fc.dictionary(headerName, headerValue, { maxKeys: 6 }),
      session: fc.boolean(),
      body: fc.option(fc.oneof(fc.json(), fc.string({ maxLength: 40 })), { nil: undefined }),
    });
    await runParallel(arb, RUNS.headers, async (c) => {
      const headers: Record<string, string> = { ...c.headers };
      delete headers['content-length'];
      delete headers['transfer-encoding'];
      delete headers.host;
      delete headers.connection;
      delete headers.expect;
      delete headers.upgrade;
      if (c.session && !headers.cookie) headers.cookie = owner.cookie;
      // A logout would end the shared session: keep that one route out of this property.
      const path = /logout/i.test(c.path) ? '/healthz' : c.path;
      const method = c.method === 'DELETE' && path.startsWith('/api/project') ? 'GET' : c.method;
      const r = await send(method, path, headers, method === 'GET' || method === 'HEAD' ? undefined : c.body);
      if (method === 'HEAD') {
        if (r.status >= 500) throw new Error(`HEAD ${path} → ${r.status}`);
        return;
      }
      checkEnvelope(r, [200, 201, 204, 400, 401, 403, 404, 409, 413, 415], c, path);
    });
    expect((await owner.get('/api/auth/me')).status).toBe(200);
  });

  it(`list queries: page, limit, search and junk parameters (${RUNS.lists} cases)`, async () => {
    const qValue = fc.oneof(
      fc.integer({ min: -5, max: 200 }).map(String),
      fc.constantFrom(
        '',
        '0',
        '1',
        '100',
        '101',
        '1e2',
        '0x10',
        '2.5',
        ' 3',
        '99999999999',
        'NaN',
        '-0',
        '%',
        '_',
        '%_%',
        '\\',
        'ann',
        'AN',
        '100%',
        'bob_',
        'zoë',
      ),
      fc.string({ maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 10 }),
    );
    const arb = fc.record({
      route: fc.constantFrom('entries', 'entries', 'entries', 'projects', 'keys', 'export'),
      params: fc.array(fc.tuple(fc.constantFrom('page', 'limit', 'search', 'format', 'x', '__proto__', 'page[]'), qValue), {
        maxLength: 5,
      }),
      raw: fc.constantFrom('', '&', '&&page', '&%zz', '&search=%ff', '&limit=%00'),
    });
    await runParallel(arb, RUNS.lists, async (c) => {
      const qs = c.params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&') + c.raw;
      const base = {
        entries: `/api/project/${plain.projectId}/waitlist`,
        projects: '/api/project',
        keys: `/api/project/${plain.projectId}/apikey`,
        export: `/api/project/${plain.projectId}/waitlist/export`,
      }[c.route];
      const r = await send('GET', `${base}?${qs}`, { cookie: owner.cookie });
      checkEnvelope(r, [200, 400], c, base);
      if (r.status !== 200 || c.route === 'export') return;
      const d = JSON.parse(r.text).data as {
        items: { email: string; name: string | null }[];
        page: number;
        limit: number;
        total: number;
        totalPages: number;
      };
      if (d.items.length > d.limit || d.totalPages !== Math.ceil(d.total / d.limit))
        throw new Error(`inconsistent page ${r.text.slice(0, 200)}`);
      const searches = c.params.filter(([k]) => k === 'search');
      const s = searches.length === 1 ? searches[0]![1].trim() : '';
      if (c.route === 'entries' && s && !c.raw.includes('search') && /^[\x20-\x7e]*$/.test(s)) {
        const needle = s.toLowerCase();
        for (const e of d.items) {
          if (!e.email.toLowerCase().includes(needle) && !(e.name ?? '').toLowerCase().includes(needle)) {
            throw new Error(`search ${JSON.stringify(s)} returned ${e.email}`);
          }
        }
      }
    });
  });
});
