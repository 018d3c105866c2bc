// API keys: the full value only at create, prefix, rename, revoke (404 afterwards, 401 at join).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsLeaked, fails, issuePaths, ok, ISO_RE } from '../helpers/api.js';
import { type Client, cleanup, DIALECT, postJoin, projectWithKey, signedUp, startServer } from '../helpers/server.js';
import { startApp, type InProcessServer } from '../helpers/app.js';

let srv: InProcessServer;
let owner: Client;
let A: Awaited<ReturnType<typeof projectWithKey>>;
let B: Awaited<ReturnType<typeof projectWithKey>>;

beforeAll(async () => {
  srv = await startApp();
  owner = await signedUp(srv.url);
  A = await projectWithKey(owner, 'Keys A');
  B = await projectWithKey(owner, 'Keys B');
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

const KEY_FIELDS = ['createdAt', 'keyId', 'kind', 'lastUsedAt', 'name', 'prefix'];
const base = () => `/api/project/${A.projectId}/apikey`;
let n = 0;
const email = () => `k-${++n}@example.com`;

function expectKey(k: any) {
  expect(Object.keys(k).sort()).toEqual(KEY_FIELDS);
  expect(k.keyId).toMatch(/^key_[0-9A-Za-z]{10,}$/);
  expect(k.createdAt).toMatch(ISO_RE);
  expect(k.lastUsedAt === null || ISO_RE.test(k.lastUsedAt)).toBe(true);
  expect(k.prefix).toMatch(/^wl_/);
}

describe('create', () => {
  it('201 with the full key once: wl_…, ≥128 bits, prefix is its start', async () => {
    const r = ok(await owner.post(base(), { name: 'Website' }), 201);
    expect(Object.keys(r).sort()).toEqual([...KEY_FIELDS, 'key'].sort());
    const { key, ...rest } = r;
    expectKey(rest);
    expect(r.name).toBe('Website');
    expect(r.lastUsedAt).toBeNull();
    expect(key).toMatch(/^wl_[A-Za-z0-9_-]+$/);
    // at least 128 bits of secret beyond the prefix: ≥ 22 base64url chars after what the prefix shows
    expect(key.length - r.prefix.length).toBeGreaterThanOrEqual(22);
    expect(key.startsWith(r.prefix)).toBe(true);
    expect(r.prefix.length).toBeLessThan(key.length - 20);
    ok(await postJoin(srv.url, A.slug, key, { email: email() }), 201);
  });

  it('every key is different', async () => {
    const keys = await Promise.all([1, 2, 3].map(() => owner.post(base(), { name: 'Same name' })));
    const values = keys.map((k) => ok(k, 201).key);
    expect(new Set(values).size).toBe(3);
    expect(new Set(keys.map((k) => k.body.data.keyId)).size).toBe(3);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'n'.repeat(101) }, 'name'],
    [{ name: 3 }, 'name'],
    [{ name: 'ok', key: 'wl_mine' }, 'key'],
    [{ name: 'ok', prefix: 'wl_x' }, 'prefix'],
    [{ name: 'ok', scopes: ['all'] }, 'scopes'],
  ])('%j → 400 at "%s"', async (body, path) => {
    expect(issuePaths(await owner.post(base(), body))).toContain(path);
  });

  it('the prefix alone does not authenticate', async () => {
    const r = ok(await owner.post(base(), { name: 'Prefix only' }), 201);
    fails(await postJoin(srv.url, A.slug, r.prefix, { email: email() }), 401, 'unauthorized');
  });
});

describe('read', () => {
  it('get shows the key without its value', async () => {
    const k = ok(await owner.get(`${base()}/${A.keyId}`));
    expectKey(k);
    expect(k).not.toHaveProperty('key');
    expect(JSON.stringify(k)).not.toContain(A.key);
  });

  it('list shows live keys without values, newest first, with the page shape', async () => {
    const P = await projectWithKey(owner, 'Keys list');
    const second = ok(await owner.post(`/api/project/${P.projectId}/apikey`, { name: 'second' }), 201);
    const d = ok(await owner.get(`/api/project/${P.projectId}/apikey`));
    expect(d).toMatchObject({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(d.items.map((k: any) => k.keyId)).toEqual([second.keyId, P.keyId]);
    for (const k of d.items) expectKey(k);
  });

  it('lastUsedAt is set by a join', async () => {
    const P = await projectWithKey(owner, 'Keys used');
    expect(ok(await owner.get(`/api/project/${P.projectId}/apikey/${P.keyId}`)).lastUsedAt).toBeNull();
    const before = Date.now();
    ok(await postJoin(srv.url, P.slug, P.key, { email: email() }), 201);
    const used = ok(await owner.get(`/api/project/${P.projectId}/apikey/${P.keyId}`)).lastUsedAt;
    expect(Date.parse(used)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('a key id under another project of the same user → 404', async () => {
    fails(await owner.get(`/api/project/${B.projectId}/apikey/${A.keyId}`), 404, 'not_found');
    fails(await owner.put(`/api/project/${B.projectId}/apikey/${A.keyId}`, { name: 'x' }), 404, 'not_found');
    fails(await owner.del(`/api/project/${B.projectId}/apikey/${A.keyId}`), 404, 'not_found');
    ok(await owner.get(`${base()}/${A.keyId}`));
  });

  it('an unknown key id → 404', async () => {
    fails(await owner.get(`${base()}/key_01ARZ3NDEKTSV4RRFFQ69G5FAV`), 404, 'not_found');
  });
});

describe('update', () => {
  it('renames; the key keeps working', async () => {
    const r = ok(await owner.post(base(), { name: 'Old' }), 201);
    const u = ok(await owner.put(`${base()}/${r.keyId}`, { name: 'New' }));
    expectKey(u);
    expect(u).toMatchObject({ keyId: r.keyId, name: 'New', prefix: r.prefix });
    expect(ok(await owner.get(`${base()}/${r.keyId}`)).name).toBe('New');
    ok(await postJoin(srv.url, A.slug, r.key, { email: email() }), 201);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', key: 'wl_x' }, 'key'],
    [{ name: 'x', prefix: 'wl_x' }, 'prefix'],
    [{ name: 'x', keyId: 'key_x' }, 'keyId'],
    [{ name: 'x', projectId: 'prj_x' }, 'projectId'],
    [{ name: 'x', lastUsedAt: null }, 'lastUsedAt'],
  ])('%j → 400 at "%s"', async (body, path) => {
    expect(issuePaths(await owner.put(`${base()}/${A.keyId}`, body))).toContain(path);
  });
});

describe('delete (revoke)', () => {
  it('200; afterwards get/update/delete → 404, absent from list, join → 401 at once', async () => {
    const r = ok(await owner.post(base(), { name: 'Revoke me' }), 201);
    ok(await postJoin(srv.url, A.slug, r.key, { email: email() }), 201);
    const d = ok(await owner.del(`${base()}/${r.keyId}`));
    expect(d.keyId).toBe(r.keyId);
    expect(d).not.toHaveProperty('key');
    fails(await postJoin(srv.url, A.slug, r.key, { email: email() }), 401, 'unauthorized');
    fails(await owner.get(`${base()}/${r.keyId}`), 404, 'not_found');
    fails(await owner.put(`${base()}/${r.keyId}`, { name: 'x' }), 404, 'not_found');
    fails(await owner.del(`${base()}/${r.keyId}`), 404, 'not_found');
    const list = ok(await owner.get(`${base()}?limit=100`));
    expect(list.items.map((k: any) => k.keyId)).not.toContain(r.keyId);
  });

  it("revoking one key leaves the project's other keys working", async () => {
    const k1 = ok(await owner.post(base(), { name: 'k1' }), 201);
    const k2 = ok(await owner.post(base(), { name: 'k2' }), 201);
    ok(await owner.del(`${base()}/${k1.keyId}`));
    fails(await postJoin(srv.url, A.slug, k1.key, { email: email() }), 401, 'unauthorized');
    ok(await postJoin(srv.url, A.slug, k2.key, { email: email() }), 201);
  });

  it('a key authenticates only joins to its own project', async () => {
    fails(await postJoin(srv.url, B.slug, A.key, { email: email() }), 401, 'unauthorized');
    fails(await postJoin(srv.url, A.slug, B.key, { email: email() }), 401, 'unauthorized');
    ok(await postJoin(srv.url, B.slug, B.key, { email: email() }), 201);
  });
});

// One SQLite file serves one server (issue 10 #8: a second refuses to start), so this runs on PostgreSQL.
describe.skipIf(DIALECT === 'sqlite')('two server instances on one database', () => {
  it('a key revoked through one instance fails at once on the other (which had it cached)', async () => {
    const second = await startServer({ reuse: srv });
    try {
      const r = ok(await owner.post(base(), { name: 'Shared' }), 201);
      ok(await postJoin(second.url, A.slug, r.key, { email: email() }), 201);
      ok(await postJoin(second.url, A.slug, r.key, { email: email() }), 201);
      ok(await owner.del(`${base()}/${r.keyId}`));
      fails(await postJoin(second.url, A.slug, r.key, { email: email() }), 401, 'unauthorized');
      fails(await postJoin(srv.url, A.slug, r.key, { email: email() }), 401, 'unauthorized');
    } finally {
      await second.stop();
    }
  });
});

describe('no secrets', () => {
  it('no response other than create held a full key, none a bcrypt hash', () => {
    const { scanned, keys } = assertNoSecretsLeaked();
    expect(scanned).toBeGreaterThan(40);
    expect(keys).toBeGreaterThan(10);
  });
});
