// Two real `waitlist serve` processes on one PostgreSQL database: nothing that must be shared lives
// in one process only. Runs when TEST_DATABASE_URL is set (see README "Scaling out").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, postJoin, projectWithKey, signedUp, startServer, uniqueEmail, type TestServer } from '../helpers/server.js';
import { createPgDatabase } from '../helpers/pg.js';
import pg from 'pg';

const baseUrl = process.env.TEST_DATABASE_URL;
if (!baseUrl) console.warn('[waitlist] multi-instance PostgreSQL tests skipped: TEST_DATABASE_URL is not set');

describe.skipIf(!baseUrl)('several instances on one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  let dbUrl: string;
  const env = { WAITLIST_JOIN_LIMIT: '50', WAITLIST_JOIN_WINDOW: '60', WAITLIST_RATE_LIMIT: 'on' };

  beforeAll(async () => {
    const url = await createPgDatabase(baseUrl!);
    dbUrl = url;
    const reuse = { dbFile: '/nonexistent', dbEnv: { DATABASE_URL: url } };
    // Both start at once on a fresh database: the migration lock must serialise them.
    [a, b] = await Promise.all([
      startServer({ reuse, env, args: ['--open-signup'] }),
      startServer({ reuse, env, args: ['--open-signup'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('a key revoked through A fails on B at its very next request', async () => {
    const owner = await signedUp(a.url, uniqueEmail('revoke'));
    const { projectId, slug, keyId, key } = await projectWithKey(owner);
    expect((await postJoin(b.url, slug, key, { email: uniqueEmail('warm') })).status).toBe(201); // B caches the key
    expect((await owner.del(`/api/project/${projectId}/apikey/${keyId}`)).status).toBe(200);
    const after = await postJoin(b.url, slug, key, { email: uniqueEmail('late') });
    expect(after.status).toBe(401);
  });

  it('a project restored or given new join settings through A is seen by B at its very next join', async () => {
    // B caches the slug and key lookups (src/db/pg/catalog-cache.ts): every change must reach it at once.
    const owner = await signedUp(a.url, uniqueEmail('catalog'));
    const { projectId, slug, key } = await projectWithKey(owner);
    expect((await postJoin(b.url, slug, key, { email: 'first@mailinator.com' })).status).toBe(201);
    expect((await owner.put(`/api/project/${projectId}/settings`, { blockDisposableEmails: true })).status).toBe(200);
    expect((await postJoin(b.url, slug, key, { email: 'second@mailinator.com' })).status).toBe(400);
    expect((await owner.del(`/api/project/${projectId}`)).status).toBe(200);
    expect((await postJoin(b.url, slug, key, { email: uniqueEmail() })).status).toBe(404);
    // `waitlist admin project restore` is another process writing the row: the same path as SQL here.
    const sql = new pg.Client({ connectionString: dbUrl });
    await sql.connect();
    await sql.query('UPDATE projects SET deleted_at = NULL WHERE id = $1', [projectId]).finally(() => sql.end());
    expect((await postJoin(b.url, slug, key, { email: uniqueEmail() })).status).toBe(201);
  });

  it('40 concurrent identical joins split over both instances give exactly one 201', async () => {
    const owner = await signedUp(a.url, uniqueEmail('race'));
    const { projectId, slug, key } = await projectWithKey(owner); // 40 joins stay under the limit of 50
    const email = uniqueEmail('same');
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        postJoin(i % 2 ? a.url : b.url, slug, key, { email: i % 3 ? email : `  ${email.toUpperCase()} ` }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(39);
    // Distinct joins racing over both instances: the trigger-kept total matches the rows.
    // (9 more: the 50-per-IP join limit of this suite stays unreached)
    const more = await Promise.all(
      Array.from({ length: 9 }, (_, i) => postJoin(i % 2 ? a.url : b.url, slug, key, { email: uniqueEmail('many') })),
    );
    expect(more.map((r) => r.status)).toEqual(Array(9).fill(201));
    const list = await owner.get(`/api/project/${projectId}/waitlist?limit=100`);
    expect(list.body.data.total).toBe(10);
    expect(list.body.data.items).toHaveLength(10);
  });

  it('a session made on A works on B, and logout on A ends it on B', async () => {
    const onA = await signedUp(a.url, uniqueEmail('session'));
    const onB = new Client(b.url);
    onB.cookie = onA.cookie;
    expect((await onB.get('/api/auth/me')).status).toBe(200);
    expect((await onA.post('/api/auth/logout')).status).toBe(200);
    const after = await onB.get('/api/auth/me');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
  });

  it('soft-deleting a project on A makes its slug 404 at join on B', async () => {
    const owner = await signedUp(a.url, uniqueEmail('softdel'));
    const { projectId, slug, key } = await projectWithKey(owner);
    expect((await postJoin(b.url, slug, key, { email: uniqueEmail() })).status).toBe(201);
    expect((await owner.del(`/api/project/${projectId}`)).status).toBe(200);
    expect((await postJoin(b.url, slug, key, { email: uniqueEmail() })).status).toBe(404);
  });

  it('the join rate limit is shared: 50 per IP per project across both instances', async () => {
    const owner = await signedUp(a.url, uniqueEmail('limit'));
    const { slug, key } = await projectWithKey(owner);
    const statuses: number[] = [];
    for (let i = 0; i < 52; i++) {
      statuses.push((await postJoin(i % 2 ? a.url : b.url, slug, key, { email: uniqueEmail('rl') })).status);
    }
    expect(statuses.slice(0, 50).every((s) => s === 201)).toBe(true);
    expect(statuses.slice(50)).toEqual([429, 429]);
  });
});

describe.skipIf(!baseUrl)('first sign-up on a fresh database with two instances', () => {
  it('exactly one of many concurrent sign-ups over both instances gets the account', async () => {
    const reuse = { dbFile: '/nonexistent', dbEnv: { DATABASE_URL: await createPgDatabase(baseUrl!) } };
    const [a, b] = await Promise.all([startServer({ reuse }), startServer({ reuse })]);
    try {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          new Client(i % 2 ? a.url : b.url).post('/api/auth/signup', { email: uniqueEmail('first'), password: 'a long password' }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 403).every((r) => r.body.error.code === 'signup_closed')).toBe(true);
      expect(statuses.filter((s) => s === 403)).toHaveLength(9);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
