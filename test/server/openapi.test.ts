// The OpenAPI document (GET /openapi.json) and its page (GET /docs): a valid OpenAPI 3.1 document by a
// real validator, covering exactly the routes the app has, and describing what the server really
// answers (real responses checked against the document's schemas with a JSON Schema 2020-12 validator).
import { validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'regexparam';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/server/openapi/routes.js';
import { startApp, type InProcessServer } from '../helpers/app.js';
import { Client, postJoin, type Res } from '../helpers/server.js';

type Json = Record<string, any>;

/** The operations of CONTRACT.md (besides the preflight and this document), all exercised by the tour. */
const CONTRACT_OPERATIONS = [
  'getHealth',
  'getReadiness',
  'authStatus',
  'joinWaitlist',
  'signup',
  'login',
  'logout',
  'logoutAll',
  'me',
  'listProjects',
  'createProject',
  'getProject',
  'updateProject',
  'deleteProject',
  'getSettings',
  'updateSettings',
  'listKeys',
  'createKey',
  'getKey',
  'updateKey',
  'deleteKey',
  'listEntries',
  'exportEntries',
  'getEntry',
  'updateEntry',
  'deleteEntry',
  'getStats',
  // lifecycle, events and sign-up surface
  'getStatus',
  'leave',
  'publicLeaderboard',
  'getLeaderboard',
  'inviteEntries',
  'getTemplates',
  'updateTemplates',
  'previewTemplate',
  'listEmails',
  'listWebhooks',
  'createWebhook',
  'getWebhook',
  'updateWebhook',
  'replaceWebhook',
  'deleteWebhook',
  'listDeliveries',
  'retryDelivery',
  'testWebhook',
  'getChallenge',
  'getForm',
  'importEntries',
];
let server: InProcessServer;
let doc: Json;

beforeAll(async () => {
  server = await startApp({ allowPrivateWebhooks: true }); // the tour's webhook points at 127.0.0.1
  const r = await fetch(`${server.url}/openapi.json`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  doc = (await r.json()) as Json;
});
afterAll(() => server?.stop());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, JSON.stringify(result.valid ? [] : result.errors, null, 2)).toBe(true);
  });

  it('the validator does refuse a broken document (so the check above can fail)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/api/project'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it('documents every route the app has, and no route it lacks', () => {
    // Polka keeps its routes as compiled patterns: compare those (method + pattern) both ways.
    const key = (method: string, path: string) => `${method.toUpperCase()} ${parse(path).pattern.source}`;
    const appRoutes = (server.app as unknown as { routes: { method: string; pattern: RegExp }[] }).routes
      .filter((r) => r.method !== '') // middleware (app.use)
      .map((r) => `${r.method} ${r.pattern.source}`);
    const known = new Map<string, string>();
    for (const r of ROUTES) known.set(key(r.method, r.path), `${r.method.toUpperCase()} ${r.path}`);
    const stale = [...known].filter(([k]) => !appRoutes.includes(k)).map(([, name]) => name);
    const missing = appRoutes.filter((k) => !known.has(k));
    expect(missing, 'routes of the app missing from src/server/openapi/routes.ts (add them to ROUTES)').toEqual([]);
    expect(stale, 'entries of src/server/openapi/routes.ts that the app does not have').toEqual([]);
    expect(appRoutes.length).toBeGreaterThanOrEqual(25);
  });

  it('every /api operation of the document but sign-up and log-in answers 401 without a session (CONTRACT.md)', async () => {
    const ops = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })),
    );
    const api = ops.filter((o) => o.path.startsWith('/api/') && o.method !== 'OPTIONS');
    expect(api.length).toBeGreaterThan(30);
    for (const { method, path } of api) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => `${name.replace(/Id$/, '').slice(0, 3)}_00000000000000000000000000`);
      const body = method === 'GET' || method === 'DELETE' || method === 'HEAD' ? undefined : {};
      const r = await new Client(server.url).req(method, url, body);
      if (path === '/api/auth/signup' || path === '/api/auth/login') expect(r.status, `${method} ${path}`).not.toBe(401);
      else expect(r.status, `${method} ${path}`).toBe(401);
    }
  });

  it('has every route of ROUTES under its OpenAPI path, each with an operationId of its own', () => {
    const ids = new Set<string>();
    for (const r of ROUTES) {
      const op = doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method];
      expect(op, `${r.method} ${r.path}`).toBeDefined();
      expect(ids.has(op.operationId)).toBe(false);
      ids.add(op.operationId);
    }
  });
});

describe('real responses match the document', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  let registered = false;
  const checked = new Set<string>();

  /** Finds the documented operation of a request path and validates the response body against it. */
  function conforms(method: string, path: string, r: Res) {
    if (!registered) {
      ajv.addSchema({ $id: 'openapi', components: doc.components });
      registered = true;
    }
    const pathname = path.split('?')[0]!;
    // A literal segment (…/waitlist/export) wins over a parameter at the same place (…/waitlist/{entryId}).
    const params = (t: string) => t.split('{').length;
    const template = Object.keys(doc.paths)
      .filter((t) => new RegExp(`^${t.replace(/\{\w+\}/g, '[^/]+')}$`).test(pathname))
      .sort((a, b) => params(a) - params(b))[0];
    expect(template, `${method} ${pathname} is not in the document`).toBeDefined();
    // HEAD is answered wherever GET is (the document says so once, in info.description).
    const op = doc.paths[template!][method.toLowerCase()] ?? (method === 'HEAD' ? doc.paths[template!].get : undefined);
    expect(op, `${method} ${template} is not in the document`).toBeDefined();
    const resp = op.responses[String(r.status)] ?? op.responses[`${String(r.status)[0]}XX`];
    expect(resp, `${method} ${template} answered ${r.status}, which is not documented: ${r.text}`).toBeDefined();
    // Every header the document promises for this answer is there (Retry-After, Set-Cookie, WWW-Authenticate, …).
    for (const name of Object.keys(resp.headers ?? {})) {
      expect(r.headers.get(name), `${method} ${template} ${r.status}: no ${name} header`).not.toBeNull();
    }
    const type = (r.headers.get('content-type') ?? '').split(';')[0]!;
    if (!resp.content || method === 'HEAD') return;
    const schema = resp.content[type]?.schema;
    expect(schema, `${method} ${template} ${r.status}: no schema for ${type}`).toBeDefined();
    const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
    const check = ajv.compile(rooted);
    const body = type === 'application/json' ? r.body : r.text;
    expect(check(body), `${method} ${template} ${r.status}: ${ajv.errorsText(check.errors)}\n${r.text}`).toBe(true);
    checked.add(`${method} ${template} ${r.status}`);
  }

  it('a tour of the API: every response has its documented status and schema', async () => {
    const c = new Client(server.url);
    const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
      const r = await c.req(method, path, body, headers);
      conforms(method, path, r);
      return r;
    };
    conforms('GET', '/healthz', await c.get('/healthz'));
    conforms('GET', '/readyz', await c.get('/readyz'));
    await call('GET', '/auth/status');
    await call('GET', '/api/auth/me'); // 401
    await call('POST', '/api/auth/signup', { email: 'tour@example.com', password: 'correct horse', name: 'Tour' });
    await call('POST', '/api/auth/signup', { email: 'x' }); // 400 / 403
    await call('POST', '/api/auth/login', { email: 'tour@example.com', password: 'wrong password' }); // 401
    await call('POST', '/api/auth/login', { email: 'tour@example.com', password: 'correct horse' });
    await call('GET', '/api/auth/me');
    const p = (await call('POST', '/api/project', { name: 'Tour project' })).body.data;
    await call('POST', '/api/project', { name: 'Again', slug: p.slug }); // 409
    await call('GET', '/api/project?page=1&limit=5');
    await call('GET', '/api/project?limit=500'); // 400
    await call('GET', `/api/project/${p.projectId}`);
    await call('GET', '/api/project/prj_missing'); // 404
    await call('PUT', `/api/project/${p.slug}`, { name: 'Renamed' });
    await call('GET', `/api/project/${p.projectId}/settings`);
    await call('PUT', `/api/project/${p.projectId}/settings`, { allowedOrigins: ['https://example.com'], honeypotField: 'website' });
    await call('PUT', `/api/project/${p.projectId}/settings`, { allowedOrigins: [] });
    const k = (await call('POST', `/api/project/${p.projectId}/apikey`, { name: 'site' })).body.data;
    await call('GET', `/api/project/${p.projectId}/apikey`);
    await call('GET', `/api/project/${p.projectId}/apikey/${k.keyId}`);
    await call('PUT', `/api/project/${p.projectId}/apikey/${k.keyId}`, { name: 'site 2' });

    const joined = await postJoin(server.url, p.slug, k.key, { email: 'Sub@Example.com', name: 'Sub', metadata: { plan: 'pro' } });
    conforms('POST', `/v1/waitlist/${p.slug}/join`, joined);
    expect(joined.status).toBe(201);
    conforms('POST', `/v1/waitlist/${p.slug}/join`, await postJoin(server.url, p.slug, k.key, { email: 'sub@example.com' })); // 409
    conforms('POST', `/v1/waitlist/${p.slug}/join`, await postJoin(server.url, p.slug, 'wl_bogus', { email: 'a@example.com' })); // 401
    conforms('POST', `/v1/waitlist/${p.slug}/join`, await postJoin(server.url, p.slug, k.key, { email: 'nope' })); // 400
    conforms('POST', `/v1/waitlist/${p.slug}/join`, await postJoin(server.url, p.slug, k.key, { email: 'bot@example.com', website: 'x' })); // honeypot 201
    const pre = await call('OPTIONS', `/v1/waitlist/${p.slug}/join`, undefined, {
      origin: 'https://a.example',
      'access-control-request-method': 'POST',
    });
    expect(pre.status).toBe(204);
    expect(Object.keys(doc.paths['/v1/waitlist/{slug}/join'].options.responses['204'].headers)).toContain('Access-Control-Allow-Origin');

    const entryId = joined.body.data.entryId;
    await call('GET', `/api/project/${p.projectId}/waitlist?search=sub`);
    await call('GET', `/api/project/${p.projectId}/waitlist?page=0`); // 400
    await call('GET', `/api/project/${p.projectId}/waitlist/${entryId}`);
    await call('PUT', `/api/project/${p.projectId}/waitlist/${entryId}`, { name: null, metadata: { a: 1 } });
    await call('GET', `/api/project/${p.projectId}/stats`);
    for (const format of ['json', 'ndjson', 'csv']) await call('GET', `/api/project/${p.projectId}/waitlist/export?format=${format}`);
    await call('GET', `/api/project/${p.projectId}/waitlist/export?format=xml`); // 400

    // The lifecycle, events and sign-up surface routes: their documented schemas against real answers.
    const pid = p.projectId;
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    await call('GET', `/api/project/${pid}/waitlist?status=waiting&sort=position`);
    await call('GET', `/api/project/${pid}/waitlist?sort=oldest`); // 400
    await call('GET', `/v1/waitlist/${p.slug}/form`, undefined, bearer(k.key));
    await call('GET', `/v1/waitlist/${p.slug}/challenge`, undefined, bearer(k.key));
    await call('GET', `/v1/waitlist/${p.slug}/form`, undefined, bearer('wl_bogus')); // 401 with WWW-Authenticate
    await call('GET', `/v1/waitlist/${p.slug}/leaderboard`); // 401 with WWW-Authenticate: no key at all
    // The hosted pages: HTML answers, HTML errors for a bad link, the envelope for an unknown project.
    await call('GET', `/w/${p.slug}?ref=nope&status=joined`);
    await call('GET', `/w/${p.slug}?error=email_taken`);
    await call('GET', `/w/${p.slug}/status?token=nope`); // 404 page
    await call('GET', '/w/no-such-project'); // 404 envelope
    await call('HEAD', `/w/${p.slug}`);
    const token = joined.body.data.statusToken as string;
    expect(token).toBeTruthy();
    await call('GET', `/v1/waitlist/${p.slug}/status?token=${encodeURIComponent(token)}`);
    await call('GET', `/v1/waitlist/${p.slug}/status?token=nope`); // 404
    await call('POST', `/v1/waitlist/${p.slug}/confirm`, { token: 'nope' }); // 404
    await call('GET', `/v1/waitlist/${p.slug}/leaderboard`, undefined, bearer(k.key)); // 404 while off
    await call('PUT', `/api/project/${pid}/settings`, { publicLeaderboard: true });
    await call('GET', `/v1/waitlist/${p.slug}/leaderboard`, undefined, bearer(k.key));
    await call('GET', `/api/project/${pid}/leaderboard`);
    await call('POST', `/api/project/${pid}/invites`, { count: 1, dryRun: true });
    await call('POST', `/api/project/${pid}/invites`, { count: 1 }); // 409 smtp_not_configured (no SMTP here)
    await call('POST', `/api/project/${pid}/invites`, { count: 1, entryIds: [entryId] }); // 400
    const secret = (await call('POST', `/api/project/${pid}/apikey`, { name: 'backend', kind: 'secret' })).body.data;
    await call('GET', `/v1/waitlist/${p.slug}/invites/nope`, undefined, bearer(secret.key)); // 404
    await call('GET', `/v1/waitlist/${p.slug}/invites/nope`, undefined, bearer(k.key)); // 403 publishable
    await call('POST', `/v1/waitlist/${p.slug}/invites/redeem`, { code: 'nope' }, bearer(secret.key)); // 404
    await call('GET', `/api/project/${pid}/templates`);
    await call('PUT', `/api/project/${pid}/templates`, { welcome: { subject: 'Welcome to {{projectName}}' }, invite: null });
    await call('PUT', `/api/project/${pid}/templates`, { nope: {} }); // 400
    await call('POST', `/api/project/${pid}/templates/preview`, { template: 'welcome' });
    await call('GET', `/api/project/${pid}/emails`);
    const hook = (await call('POST', `/api/project/${pid}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['entry.created'] })).body
      .data;
    expect(hook.secret).toMatch(/^whsec_/);
    await call('GET', `/api/project/${pid}/webhooks`);
    await call('GET', `/api/project/${pid}/webhooks/${hook.webhookId}`);
    await call('PATCH', `/api/project/${pid}/webhooks/${hook.webhookId}`, { enabled: false });
    await call('PUT', `/api/project/${pid}/webhooks/${hook.webhookId}`, { enabled: true });
    const ping = (await call('POST', `/api/project/${pid}/webhooks/${hook.webhookId}/test`)).body.data;
    await call('GET', `/api/project/${pid}/webhooks/${hook.webhookId}/deliveries`);
    expect((await call('POST', `/api/project/${pid}/webhooks/${hook.webhookId}/rotate-secret`)).status).toBe(200); // no body
    await call('POST', `/api/project/${pid}/webhooks/${hook.webhookId}/deliveries/${ping.deliveryId}/retry`);
    await call('GET', `/api/project/${pid}/webhooks/whk_missing`); // 404
    await call('DELETE', `/api/project/${pid}/webhooks/${hook.webhookId}`);
    await call('POST', `/api/project/${pid}/import?dryRun=true`, 'email,name\nimp@example.com,Imp\nnot-an-email,X\n', {
      'content-type': 'text/csv',
    });
    await call('POST', `/api/project/${pid}/import?format=ndjson`, '{"email":"imp2@example.com"}\n', {
      'content-type': 'application/x-ndjson',
    });
    await call('POST', `/api/project/${pid}/import?dryRun=true`, 'email\nplain@example.com\n', { 'content-type': 'text/plain' });
    await call('POST', `/api/project/${pid}/import`, 'x', { 'content-type': 'image/png' }); // 415
    await call('POST', `/v1/waitlist/${p.slug}/leave`, { token });
    await call('POST', `/v1/waitlist/${p.slug}/leave`, { token }); // 404: erased
    await call('DELETE', `/api/project/${p.projectId}/waitlist/${entryId}`); // 404: the subscriber left
    const other = (await postJoin(server.url, p.slug, k.key, { email: 'other@example.com' })).body.data.entryId;
    await call('DELETE', `/api/project/${p.projectId}/waitlist/${other}`);
    await call('DELETE', `/api/project/${p.projectId}/apikey/${k.keyId}`);
    await call('POST', '/api/project', 'not json'); // 400 invalid_json
    await call('POST', '/api/project', { name: 'x' }, { origin: 'https://evil.example' }); // 403
    await call('DELETE', `/api/project/${p.projectId}`);
    await call('POST', '/api/auth/logout-all');
    await call('POST', '/api/auth/login', { email: 'tour@example.com', password: 'correct horse' });
    await call('POST', '/api/auth/logout');

    // Every operation of CONTRACT.md was answered at least once with its success status. (A route added
    // later is checked here as soon as the tour calls it; add it to the tour with the route.)
    const succeeded = new Set([...checked].filter((s) => /\s2\d\d$/.test(s)).map((s) => s.replace(/\s\d+$/, '')));
    const opIds = new Map<string, string>();
    for (const [t, item] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(item as Json)) opIds.set((op as Json).operationId, `${m.toUpperCase()} ${t}`);
    const notRun = CONTRACT_OPERATIONS.filter((id) => !opIds.has(id) || !succeeded.has(opIds.get(id)!));
    expect(notRun).toEqual([]);
  });

  it('invites, checked and redeemed (a server with SMTP): the invite schemas against real answers', async () => {
    // Port 9 refuses: the invite emails fail in the background; the routes only need SMTP configured.
    const mailing = await startApp({ smtpUrl: 'smtp://127.0.0.1:9' });
    try {
      const c = new Client(mailing.url);
      const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
        const r = await c.req(method, path, body, headers);
        conforms(method, path, r);
        return r;
      };
      await c.req('POST', '/api/auth/signup', { email: 'inv@example.com', password: 'correct horse' });
      const p = (await c.req('POST', '/api/project', { name: 'Invites' })).body.data;
      const pub = (await c.req('POST', `/api/project/${p.projectId}/apikey`, { name: 'site' })).body.data;
      const secret = (await c.req('POST', `/api/project/${p.projectId}/apikey`, { name: 'backend', kind: 'secret' })).body.data;
      expect((await postJoin(mailing.url, p.slug, pub.key, { email: 'first@example.com' })).status).toBe(201);
      const inv = await call('POST', `/api/project/${p.projectId}/invites`, { count: 1 });
      expect(inv.status).toBe(200);
      const code = inv.body.data.invited[0].inviteCode as string;
      const bearer = { authorization: `Bearer ${secret.key}` };
      expect((await call('GET', `/v1/waitlist/${p.slug}/invites/${code}`, undefined, bearer)).status).toBe(200);
      await call('GET', `/v1/waitlist/${p.slug}/invites/${code}`, undefined, { ...bearer, origin: 'https://a.example' }); // 403
      expect((await call('POST', `/v1/waitlist/${p.slug}/invites/redeem`, { code }, bearer)).status).toBe(200);
      expect((await call('POST', `/v1/waitlist/${p.slug}/invites/redeem`, { code }, bearer)).status).toBe(409); // invite_used
      await call('GET', `/v1/waitlist/${p.slug}/invites/${code}`, undefined, bearer);
    } finally {
      await mailing.stop();
    }
    for (const id of ['checkInvite', 'redeemInvite']) {
      const r = ROUTES.find((x) => x.id === id)!;
      const template = r.path.replace(/:(\w+)/g, '{$1}');
      expect(checked.has(`${r.method.toUpperCase()} ${template} 200`), id).toBe(true);
    }
  });
});

describe('GET /docs', () => {
  it('renders every operation as one self-contained page: no script, nothing from elsewhere', async () => {
    const r = await fetch(`${server.url}/docs`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await r.text();
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//i);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item as Json)) expect(page).toContain(`id="${(op as Json).operationId}"`);
      expect(page).toContain(`<code>${path}</code>`);
    }
    expect(page).toContain('href="/openapi.json"');
  });
});

describe('rate limit', () => {
  it('/openapi.json and /docs are limited per client address', async () => {
    const limited = await startApp({ rateLimit: true });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 61; i++) statuses.push((await fetch(`${limited.url}/${i % 2 ? 'docs' : 'openapi.json'}`)).status);
      expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
      const last = await fetch(`${limited.url}/openapi.json`);
      expect(statuses[60] === 429 || last.status === 429).toBe(true);
      expect(last.status).toBe(429);
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await last.json()) as Json).error.code).toBe('rate_limited');
    } finally {
      await limited.stop();
    }
  });
});
