// Another user's project, key or entry answers 404 (never 403) on every /api route, by id and by slug,
// and nothing of the owner's changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsLeaked, fails, ok } from '../helpers/api.js';
import { cleanup, postJoin, projectWithKey, signedUp, type Client } from '../helpers/server.js';
import { startApp, type InProcessServer } from '../helpers/app.js';

let srv: InProcessServer;
let alice: Client;
let mallory: Client;
type PK = Awaited<ReturnType<typeof projectWithKey>>;
let A: PK; // alice's
let M: PK; // mallory's own project
let aliceEntry: string;
let malloryEntry: string;

beforeAll(async () => {
  srv = await startApp({ openSignup: true });
  [alice, mallory] = await Promise.all([signedUp(srv.url), signedUp(srv.url)]);
  A = await projectWithKey(alice, 'Alice Project');
  M = await projectWithKey(mallory, 'Mallory Project');
  aliceEntry = ok(await postJoin(srv.url, A.slug, A.key, { email: 'sub@example.com', name: 'Alice Sub' }), 201).entryId;
  malloryEntry = ok(await postJoin(srv.url, M.slug, M.key, { email: 'sub@example.com' }), 201).entryId;
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

type Route = [method: string, path: () => string, body?: unknown];
const routes: Route[] = [
  // alice's project by id and by slug
  ['GET', () => `/api/project/${A.projectId}`],
  ['GET', () => `/api/project/${A.slug}`],
  ['PUT', () => `/api/project/${A.projectId}`, { name: 'pwned' }],
  ['PUT', () => `/api/project/${A.projectId}`, { bogus: true }],
  ['DELETE', () => `/api/project/${A.projectId}`],
  ['DELETE', () => `/api/project/${A.slug}`],
  ['GET', () => `/api/project/${A.projectId}/apikey`],
  ['POST', () => `/api/project/${A.projectId}/apikey`, { name: 'backdoor' }],
  ['GET', () => `/api/project/${A.projectId}/apikey/${A.keyId}`],
  ['PUT', () => `/api/project/${A.projectId}/apikey/${A.keyId}`, { name: 'pwned' }],
  ['DELETE', () => `/api/project/${A.projectId}/apikey/${A.keyId}`],
  ['GET', () => `/api/project/${A.projectId}/waitlist`],
  ['GET', () => `/api/project/${A.projectId}/waitlist?search=sub`],
  ['GET', () => `/api/project/${A.projectId}/waitlist/export?format=json`],
  ['GET', () => `/api/project/${A.projectId}/waitlist/export?format=csv`],
  ['GET', () => `/api/project/${A.projectId}/waitlist/${aliceEntry}`],
  ['PUT', () => `/api/project/${A.projectId}/waitlist/${aliceEntry}`, { name: 'pwned' }],
  ['DELETE', () => `/api/project/${A.projectId}/waitlist/${aliceEntry}`],
  ['GET', () => `/api/project/${A.projectId}/stats`],
  // alice's key and entry through mallory's own project
  ['GET', () => `/api/project/${M.projectId}/apikey/${A.keyId}`],
  ['PUT', () => `/api/project/${M.projectId}/apikey/${A.keyId}`, { name: 'pwned' }],
  ['DELETE', () => `/api/project/${M.projectId}/apikey/${A.keyId}`],
  ['GET', () => `/api/project/${M.projectId}/waitlist/${aliceEntry}`],
  ['PUT', () => `/api/project/${M.projectId}/waitlist/${aliceEntry}`, { name: 'pwned' }],
  ['DELETE', () => `/api/project/${M.projectId}/waitlist/${aliceEntry}`],
];

describe('another user → 404 not_found on every route', () => {
  for (const [method, path, body] of routes) {
    it(`${method} ${path.toString().replace(/^\(\) => /, '')}${body ? ` ${JSON.stringify(body)}` : ''}`, async () => {
      const r = await mallory.req(method, path(), body);
      fails(r, 404, 'not_found');
      expect(r.text).not.toContain('Alice');
      expect(r.text).not.toContain('sub@example.com');
    });
  }
});

describe('the owner sees nothing changed', () => {
  it('project, key and entry are intact; the key still joins', async () => {
    expect(ok(await alice.get(`/api/project/${A.projectId}`)).name).toBe('Alice Project');
    const keys = ok(await alice.get(`/api/project/${A.projectId}/apikey`));
    expect(keys.items.map((k: any) => k.name)).toEqual(['test key']);
    expect(ok(await alice.get(`/api/project/${A.projectId}/waitlist/${aliceEntry}`)).name).toBe('Alice Sub');
    ok(await postJoin(srv.url, A.slug, A.key, { email: 'later@example.com' }), 201);
  });

  it("lists hold only one's own resources", async () => {
    const mine = ok(await mallory.get('/api/project'));
    expect(mine.items.map((p: any) => p.projectId)).toEqual([M.projectId]);
    const entries = ok(await mallory.get(`/api/project/${M.projectId}/waitlist`));
    expect(entries.items.map((e: any) => e.entryId)).toEqual([malloryEntry]);
  });

  it('the same ids work for the owner (so the 404s above are about ownership)', async () => {
    ok(await alice.get(`/api/project/${A.projectId}/apikey/${A.keyId}`));
    ok(await alice.get(`/api/project/${A.projectId}/stats`));
    ok(await mallory.get(`/api/project/${M.projectId}/waitlist/${malloryEntry}`));
  });
});

describe('no secrets', () => {
  it('no response held a full key or a bcrypt hash', () => {
    expect(assertNoSecretsLeaked().scanned).toBeGreaterThan(30);
  });
});
