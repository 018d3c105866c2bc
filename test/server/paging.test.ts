// page/limit rules, identical on the three lists (projects, keys, entries): shape, edges, 400s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsLeaked, issuePaths, ok } from '../helpers/api.js';
import { cleanup, postJoin, projectWithKey, signedUp, type Client } from '../helpers/server.js';
import { startApp, type InProcessServer } from '../helpers/app.js';

let srv: InProcessServer;
let owner: Client;
let P: Awaited<ReturnType<typeof projectWithKey>>;
const N = 5; // items in each list
const ids: Record<string, string[]> = { projects: [], keys: [], entries: [] };

beforeAll(async () => {
  srv = await startApp();
  owner = await signedUp(srv.url);
  P = await projectWithKey(owner, 'Paging 1');
  ids.projects!.push(P.projectId);
  for (let i = 2; i <= N; i++) ids.projects!.push(ok(await owner.post('/api/project', { name: `Paging ${i}` }), 201).projectId);
  ids.keys!.push(P.keyId);
  for (let i = 2; i <= N; i++) ids.keys!.push(ok(await owner.post(`/api/project/${P.projectId}/apikey`, { name: `k${i}` }), 201).keyId);
  for (let i = 1; i <= N; i++) ids.entries!.push(ok(await postJoin(srv.url, P.slug, P.key, { email: `p${i}@example.com` }), 201).entryId);
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

const LISTS: [string, () => string, string][] = [
  ['projects', () => '/api/project', 'projectId'],
  ['keys', () => `/api/project/${P.projectId}/apikey`, 'keyId'],
  ['entries', () => `/api/project/${P.projectId}/waitlist`, 'entryId'],
];

describe.each(LISTS)('%s list', (name, path, idField) => {
  const get = (q: string) => owner.get(`${path()}${q}`);
  const newestFirst = () => [...ids[name]!].reverse();

  it('defaults: page 1, limit 20, newest first', async () => {
    const d = ok(await get(''));
    expect(Object.keys(d).sort()).toEqual(['items', 'limit', 'page', 'total', 'totalPages']);
    expect(d).toMatchObject({ page: 1, limit: 20, total: N, totalPages: 1 });
    expect(d.items.map((x: any) => x[idField])).toEqual(newestFirst());
  });

  it.each([
    ['?limit=2', 1, 2, [0, 1]],
    ['?limit=2&page=2', 2, 2, [2, 3]],
    ['?limit=2&page=3', 3, 2, [4]],
    ['?limit=2&page=4', 4, 2, []],
    ['?page=999', 999, 20, []],
    ['?limit=1', 1, 1, [0]],
    ['?limit=100', 1, 100, [0, 1, 2, 3, 4]],
    ['?limit=5&page=1', 1, 5, [0, 1, 2, 3, 4]],
    ['?page=01&limit=02', 1, 2, [0, 1]],
  ])('%s → page %i, limit %i, the right slice', async (q, page, limit, slice) => {
    const d = ok(await get(q));
    expect(d).toMatchObject({ page, limit, total: N, totalPages: Math.ceil(N / limit) });
    expect(d.items.map((x: any) => x[idField])).toEqual(slice.map((i) => newestFirst()[i]));
  });

  it.each([
    ['?page=0', 'page'],
    ['?page=-1', 'page'],
    ['?page=1.5', 'page'],
    ['?page=abc', 'page'],
    ['?page=', 'page'],
    ['?page=1e2', 'page'],
    ['?page=0x10', 'page'],
    ['?page=1&page=2', 'page'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=-5', 'limit'],
    ['?limit=2.5', 'limit'],
    ['?limit=ten', 'limit'],
    ['?limit=10&limit=20', 'limit'],
  ])('%s → 400 at "%s"', async (q, field) => {
    expect(issuePaths(await get(q))).toEqual([field]);
  });

  it('both invalid → two issues', async () => {
    expect(issuePaths(await get('?page=0&limit=0')).sort()).toEqual(['limit', 'page']);
  });
});

describe('empty lists', () => {
  it('total 0, totalPages 0, no items', async () => {
    const E = await projectWithKey(owner, 'Empty');
    const d = ok(await owner.get(`/api/project/${E.projectId}/waitlist`));
    expect(d).toEqual({ items: [], page: 1, limit: 20, total: 0, totalPages: 0 });
  });
});

describe('no secrets', () => {
  it('no list response held a full key or a bcrypt hash', () => {
    expect(assertNoSecretsLeaked().keys).toBeGreaterThanOrEqual(N);
  });
});
