// Issue 10 (hardening, round two), the items a database is involved in; runs on SQLite and, with
// TEST_DATABASE_URL, on PostgreSQL: honeypots named like Object.prototype members (#3), NUL bytes in
// path ids and query values (#4), /API in any case (#5), DNS rebinding via Host (#6), CSV injection
// (#7), one search fold on both databases (#11) and lone surrogates (#11).
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, postJoin, projectWithKey, signedUp, uniqueEmail, useServer } from '../helpers/server.js';
import { raw, rawJson } from '../helpers/raw.js';

let owner: Client;
let p: Awaited<ReturnType<typeof projectWithKey>>;

const srv = useServer({ args: ['--allowed-hosts', 'waitlist.test,admin.test:9999', '--public-url', 'https://wl.example.com'] });
beforeAll(async () => {
  owner = await signedUp(srv.url);
  p = await projectWithKey(owner, 'Round two');
});

const port = () => new URL(srv.url).port;
const list = async (projectId: string, search: string) =>
  (await owner.get(`/api/project/${projectId}/waitlist?limit=100&search=${encodeURIComponent(search)}`)).body.data.items.map(
    (e: { name: string }) => e.name,
  ) as string[];

describe('#3 honeypot named like an inherited property', () => {
  it.each(['valueOf', 'toString', 'hasOwnProperty', 'isPrototypeOf', 'toLocaleString'])('refuses %s in settings', async (name) => {
    const r = await owner.put(`/api/project/${p.projectId}/settings`, { honeypotField: name });
    expect(r.status).toBe(400);
    expect(r.body.error.issues[0].path).toBe('honeypotField');
  });

  it('only a field actually sent counts as the honeypot: joins without it are stored', async () => {
    const H = await projectWithKey(owner, 'Honeypot');
    expect((await owner.put(`/api/project/${H.projectId}/settings`, { honeypotField: 'website' })).status).toBe(200);
    const email = uniqueEmail('real');
    expect((await postJoin(srv.url, H.slug, H.key, { email })).status).toBe(201);
    const bot = await postJoin(srv.url, H.slug, H.key, { email: uniqueEmail('bot'), website: 'http://spam' });
    expect(bot.status).toBe(201);
    const items = (await owner.get(`/api/project/${H.projectId}/waitlist`)).body.data.items;
    expect(items.map((e: { email: string }) => e.email)).toEqual([email]);
  });
});

describe('#4 NUL bytes and lone surrogates in path ids and query values', () => {
  const paths = () => [
    `/api/project/%00`,
    `/api/project/prj_%00x`,
    `/api/project/${p.projectId}%00`,
    `/api/project/${p.projectId}/waitlist/%00`,
    `/api/project/${p.projectId}/apikey/key_%00`,
    `/api/project/${p.projectId}/settings%00`,
    `/api/project/${p.projectId}/stats%00`,
  ];
  it('GET/PUT/DELETE with a NUL in a path id answer 404, never 500', async () => {
    for (const path of paths()) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const r = await owner.req(method, path, method === 'PUT' ? { name: 'x' } : undefined);
        expect([400, 404], `${method} ${path}`).toContain(r.status);
        expect(r.body.status).toBe('error');
      }
    }
  });

  it('a NUL in the join slug answers 401/404, never 500', async () => {
    const r = await postJoin(srv.url, `${p.slug}%00`, p.key, { email: uniqueEmail() });
    expect([401, 404]).toContain(r.status);
    const o = await new Client(srv.url).req('OPTIONS', `/v1/waitlist/%00/join`);
    expect(o.status).toBeLessThan(500);
  });

  it('a NUL in any query value (known parameter or not) answers 400', async () => {
    for (const q of ['page=1%00', 'limit=%00', 'format=csv%00', 'other=%00', 'search=a%00b', '%00=1']) {
      const r = await owner.get(`/api/project/${p.projectId}/waitlist/export?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
    }
    const r = await owner.get(`/api/project?page=%00`);
    expect(r.status).toBe(400);
    expect(r.body.error.issues[0].path).toBe('page');
  });
});

describe('#5 /API in any case goes through the /api guard', () => {
  it('a cross-origin POST /API/auth/login is refused (403), no cookie', async () => {
    for (const path of ['/API/auth/login', '/Api/auth/login', '/aPI/auth/signup']) {
      const r = await new Client(srv.url).post(path, { email: uniqueEmail(), password: 'whatever1' }, { origin: 'https://evil.example' });
      expect(r.status, path).toBe(403);
      expect(r.headers.get('set-cookie')).toBeNull();
    }
  });

  it('GET /API/project without a session is 401, with one is the list', async () => {
    expect((await new Client(srv.url).get('/API/project')).status).toBe(401);
    expect((await owner.get('/API/PROJECT')).status).toBe(200);
  });
});

describe('#6 Host names (DNS rebinding)', () => {
  const signup = (host: string, origin?: string) =>
    raw(
      srv.url,
      `POST /api/auth/signup HTTP/1.1\r\nHost: ${host}\r\n${origin ? `Origin: ${origin}\r\n` : ''}` +
        `Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      { waitMs: 3000 },
    );

  it('a page rebound to this server (its own Host and Origin) is refused on /api', async () => {
    const r = await signup(`evil.example:${port()}`, `http://evil.example:${port()}`);
    expect(r.status).toBe(403);
    expect(rawJson(r.text).error.code).toBe('forbidden');
    expect((await signup(`evil.example:${port()}`)).status).toBe(403); // without Origin too
  });

  it('IP literals, localhost, --allowed-hosts and --public-url hosts pass the Host check', async () => {
    // 400: the empty body reached validation, past the guard.
    expect((await signup(`127.0.0.1:${port()}`, `http://127.0.0.1:${port()}`)).status).toBe(400);
    expect((await signup(`localhost:${port()}`, `http://localhost:${port()}`)).status).toBe(400);
    // An IP literal or localhost cannot be a rebinding attacker's name: any port (a proxy, a tunnel).
    expect((await signup('127.0.0.1:4443', 'http://127.0.0.1:4443')).status).toBe(400);
    expect((await signup('[::1]:8443')).status).toBe(400);
    expect((await signup('localhost.evil.example')).status).toBe(403);
    expect((await signup('waitlist.test:1234', 'http://waitlist.test:1234')).status).toBe(400);
    expect((await signup('admin.test:9999')).status).toBe(400);
    expect((await signup('admin.test:9998')).status).toBe(403);
    expect((await signup('wl.example.com', 'https://wl.example.com')).status).toBe(400);
    // Behind a proxy that keeps the internal Host, the public origin is accepted.
    expect((await signup(`127.0.0.1:${port()}`, 'https://wl.example.com')).status).toBe(400);
    expect((await signup(`127.0.0.1:${port()}`, 'https://other.example.com')).status).toBe(403);
  });

  it('the join route and the dashboard do not depend on the Host', async () => {
    const r = await raw(srv.url, `GET /healthz HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`, { waitMs: 3000 });
    expect(r.status).toBe(200);
  });
});

describe('#7 CSV export', () => {
  it('quotes every cell and neutralises a leading = + - @ tab CR in every field, emails included', async () => {
    const C = await projectWithKey(owner, 'CSV injection');
    const bodies = [
      { email: `-dash${Date.now()}@example.com`, name: `x;=cmd|' /C calc'!A0;y`, source: '-2+3' },
      { email: `+plus${Date.now()}@example.com`, name: '@SUM(1)', source: '=1+1' },
      { email: `@at${Date.now()}@example.com`, name: 'plain' },
    ];
    for (const b of bodies) {
      const r = await postJoin(srv.url, C.slug, C.key, b);
      if (r.status !== 201) expect(r.body.error.issues[0].path).toBe('email'); // an address form the server refuses
    }
    const r = await owner.get(`/api/project/${C.projectId}/waitlist/export?format=csv`);
    expect(r.status).toBe(200);
    const lines = r.text.trimEnd().split('\n');
    for (const line of lines) {
      // Every cell is quoted: the line is "…","…",…; a `;` inside a value never starts a cell.
      expect(line).toMatch(/^"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*$/);
      for (const cell of line.slice(1, -1).split('","')) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    }
    expect(r.text).toContain(`"x;=cmd|' /C calc'!A0;y"`);
    expect(r.text).toContain(`"'-2+3"`);
    expect(r.text).toContain(`"'=1+1"`);
    expect(r.text).toContain(`"'@SUM(1)"`);
    expect(r.text).toMatch(/"'-dash\d+@example\.com"/);
  });
});

describe('#11 search folds case the same way on both databases', () => {
  // (No needle occurs in the emails, fold<i>@example.com: search matches email or name.)
  const NAMES = ['İstanbul', 'istanbul', 'ISTANBUL', 'Kelvin', '\u212Aelvin', 'Émile', 'émile', 'ÖZGÜR', 'straße'];
  // The reference: each code point lower-cased on its own, unless that takes several code points (İ).
  const fold = (s: string) => [...s].map((c) => ([...c.toLowerCase()].length === 1 ? c.toLowerCase() : c)).join('');
  const NEEDLES = ['İ', 'i', 'İs', 'İst', 'ist', 'IST', 'k', 'K', 'kel', 'é', 'É', 'ÉMI', 'ö', 'özg', 'ß', 'STRASSE', 'r', 'R'];
  let S: Awaited<ReturnType<typeof projectWithKey>>;

  beforeAll(async () => {
    S = await projectWithKey(owner, 'Fold');
    for (const [i, name] of NAMES.entries()) {
      expect((await postJoin(srv.url, S.slug, S.key, { email: `fold${i}@example.com`, name })).status).toBe(201);
    }
  });

  it.each(NEEDLES)('needle %s finds exactly the reference matches', async (needle) => {
    const expected = NAMES.filter((n) => fold(n).includes(fold(needle))).sort();
    expect((await list(S.projectId, needle)).sort()).toEqual(expected);
  });

  it('İ finds İstanbul (and only names with İ)', async () => {
    expect(await list(S.projectId, 'İ')).toEqual(['İstanbul']);
  });

  it('İ in an email: found by İ, and an address with a plain i is not', async () => {
    const P = await projectWithKey(owner, 'Fold emails');
    for (const email of ['İlker@example.com', 'ilker@example.com', 'ILKER2@example.com']) {
      expect((await postJoin(srv.url, P.slug, P.key, { email })).status).toBe(201);
    }
    const emails = async (needle: string) =>
      (await owner.get(`/api/project/${P.projectId}/waitlist?search=${encodeURIComponent(needle)}`)).body.data.items
        .map((e: { email: string }) => e.email)
        .sort();
    expect(await emails('İ')).toEqual(['İlker@example.com']);
    expect(await emails('İlk')).toEqual(['İlker@example.com']);
    expect(await emails('ilk')).toEqual(['ILKER2@example.com', 'ilker@example.com']);
  });
});

describe('#11 lone UTF-16 surrogates', () => {
  const join = (json: string) => new Client(srv.url).post(`/v1/waitlist/${p.slug}/join`, json, { authorization: `Bearer ${p.key}` });

  it.each([
    ['name', `{"email":"s1@example.com","name":"A\\ud800B"}`],
    ['name', `{"email":"s2@example.com","name":"\\udfff"}`],
    ['source', `{"email":"s3@example.com","source":"x\\ud83d"}`],
    ['metadata.k', `{"email":"s4@example.com","metadata":{"k":"\\udc00"}}`],
    ['metadata.a.0', `{"email":"s5@example.com","metadata":{"a":["\\ud800"]}}`],
  ])('a lone surrogate in %s → 400 naming it, nothing stored', async (path, json) => {
    const r = await join(json);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  it('a proper surrogate pair (emoji) is stored and read back exactly', async () => {
    const r = await join(`{"email":"emoji${Date.now()}@example.com","name":"A\\ud83d\\ude00B"}`);
    expect(r.status).toBe(201);
    expect(r.body.data.name).toBe('A😀B');
    const got = await owner.get(`/api/project/${p.projectId}/waitlist/${r.body.data.entryId}`);
    expect(got.body.data.name).toBe('A😀B');
  });

  it('a lone surrogate in a management body (project name) → 400', async () => {
    const r = await owner.post('/api/project', `{"name":"Bad \\ud800 name"}`);
    expect(r.status).toBe(400);
    expect(r.body.error.issues[0].path).toBe('name');
  });
});

describe('text the databases cannot store, anywhere in a body (fuzz audit, 2026-11-27)', () => {
  it('a NUL nested in a template, an invite id or a field definition → 400 naming it; nothing written', async () => {
    const before = (await owner.get(`/api/project/${p.projectId}/templates`)).body.data;
    const t = await owner.put(`/api/project/${p.projectId}/templates`, {
      confirmation: { subject: 'ok' },
      welcome: { subject: 'a\u0000b' },
    });
    expect(t.status).toBe(400);
    expect(t.body.error.code).toBe('validation_failed');
    expect(t.body.error.issues.map((i: { path: string }) => i.path)).toEqual(['welcome.subject']);
    expect((await owner.get(`/api/project/${p.projectId}/templates`)).body.data).toEqual(before);
    const inv = await owner.post(`/api/project/${p.projectId}/invites`, { entryIds: ['a\u0000b'] });
    expect(inv.status).toBe(400);
    expect(inv.body.error.issues.map((i: { path: string }) => i.path)).toEqual(['entryIds.0']);
    const s = await owner.put(`/api/project/${p.projectId}/settings`, {
      fields: [{ key: 'k', label: 'a\u0000b', type: 'select', options: ['x\u0000'] }],
    });
    expect(s.status).toBe(400);
    expect(s.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(['fields.0.label', 'fields.0.options.0']);
  });

  it("a NUL in a join's field answer → 400; in its metadata it is kept (stored as escaped JSON)", async () => {
    const F = await projectWithKey(owner, 'Nul fields');
    expect(
      (await owner.put(`/api/project/${F.projectId}/settings`, { fields: [{ key: 'team', label: 'Team', type: 'text' }] })).status,
    ).toBe(200);
    const bad = await postJoin(srv.url, F.slug, F.key, { email: uniqueEmail('nulfield'), fields: { team: 'x\u0000' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { path: string }) => i.path)).toEqual(['fields.team']);
    expect((await postJoin(srv.url, F.slug, F.key, { email: uniqueEmail('nulmeta'), metadata: { k: 'a\u0000b' } })).status).toBe(201);
  });

  it('a body that is not UTF-8 → 400 invalid_json, on the management API and the join; nothing stored', async () => {
    const put = await fetch(`${srv.url}/api/project/${p.projectId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', cookie: owner.cookie! },
      body: Buffer.from([...Buffer.from('{"name":"'), 0xff, 0xfe, ...Buffer.from('"}')]),
    });
    expect(put.status).toBe(400);
    expect(((await put.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
    expect((await owner.get(`/api/project/${p.projectId}`)).body.data.name).toBe('Round two');
    const join = await fetch(`${srv.url}/v1/waitlist/${p.slug}/join`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.key}` },
      body: Buffer.from([...Buffer.from('{"email":"latin1@example.com","name":"Jos'), 0xe9, ...Buffer.from('"}')]),
    });
    expect(join.status).toBe(400);
    expect(await join.json()).toMatchObject({
      status: 'error',
      error: { code: 'invalid_json' },
      message: 'Request body is not valid UTF-8',
    });
  });

  it('templates take bodies of the documented 50,000 characters, in a PUT and a preview', async () => {
    const text = `Hello {{name}} ${'é'.repeat(49_900)}`;
    const put = await owner.put(`/api/project/${p.projectId}/templates`, { welcome: { text, html: `<p>${text}</p>` } });
    expect(put.status).toBe(200);
    const preview = await owner.post(`/api/project/${p.projectId}/templates/preview`, { template: 'welcome', text });
    expect(preview.status).toBe(200);
    expect(preview.body.data.text.length).toBeGreaterThan(49_900);
    expect((await owner.put(`/api/project/${p.projectId}/templates`, { welcome: null })).status).toBe(200);
  });

  it('sections nested deeper than 20 levels are refused (400) in a PUT and a preview: thousands overflowed the stack (500)', async () => {
    const nested = (n: number) => `${'{{#name}}'.repeat(n)}x${'{{/name}}'.repeat(n)}`;
    const deep = nested(2700); // 48 KB: within the 50,000 characters
    const put = await owner.put(`/api/project/${p.projectId}/templates`, { welcome: { text: deep } });
    expect(put.status).toBe(400);
    expect(put.body.error.issues).toEqual([
      { path: 'welcome.text', message: 'Template sections ({{#…}}, {{^…}}) may nest at most 20 levels' },
    ]);
    const preview = await owner.post(`/api/project/${p.projectId}/templates/preview`, { template: 'welcome', text: deep });
    expect(preview.status).toBe(400);
    // 20 levels are fine.
    const ok20 = await owner.post(`/api/project/${p.projectId}/templates/preview`, { template: 'welcome', text: nested(20) });
    expect(ok20.status).toBe(200);
  });

  it('page takes the documented 1,000,000,000 and says why above it', async () => {
    const top = await owner.get(`/api/project/${p.projectId}/waitlist?page=1000000000`);
    expect(top.status).toBe(200);
    expect(top.body.data.items).toEqual([]);
    const over = await owner.get(`/api/project?page=1000000001`);
    expect(over.status).toBe(400);
    expect(over.body.error.issues[0]).toEqual({ path: 'page', message: 'page must be between 1 and 1000000000' });
  });

  it('a webhook URL on port 0 → 400 naming url', async () => {
    const r = await owner.post(`/api/project/${p.projectId}/webhooks`, { url: 'http://example.com:0/' });
    expect(r.status).toBe(400);
    expect(r.body.error.issues[0].path).toBe('url');
  });
});
