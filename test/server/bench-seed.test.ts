// The bench's seeder (bench/seed.mjs) writes entries straight into the database, as the server would
// have: each seeded entry waiting in join order, its ordinal taken from the project's counter, so its
// position is its place in that order. A seeder broken by a schema change (a column given twice, on
// PostgreSQL, went unnoticed until `npm run bench -- --database-url` failed) fails here instead.
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { Client, DIALECT, postJoin, projectWithKey, serversForFile, signedUp, uniqueEmail } from '../helpers/server.js';

interface Seeders {
  seedPg(url: string, projectId: string, n: number): Promise<void>;
  seedSqlite(file: string, projectId: string, n: number): Promise<void>;
}

describe('the bench seeder', () => {
  const start = serversForFile();

  it('seeds entries that wait after the real ones, in join order, with exact positions', async () => {
    const first = await start();
    const email = uniqueEmail('owner');
    const owner = await signedUp(first.url, email);
    const p = await projectWithKey(owner);
    expect((await postJoin(first.url, p.slug, p.key, { email: uniqueEmail('real') })).status).toBe(201);
    await first.stop();

    const seed = (await import('../../bench/seed.mjs' as string)) as Seeders;
    if (DIALECT === 'pg') await seed.seedPg(first.dbEnv.DATABASE_URL!, p.projectId, 150);
    else await seed.seedSqlite(first.dbFile, p.projectId, 150);

    const again = await start({ reuse: { dbFile: first.dbFile, dbEnv: first.dbEnv } });
    const admin = new Client(again.url);
    ok(await admin.post('/api/auth/login', { email, password: 'correct horse' }));
    const stats = ok(await admin.get(`/api/project/${p.projectId}/stats`));
    expect(stats.byStatus.waiting).toBe(151);
    const list = ok(await admin.get(`/api/project/${p.projectId}/waitlist?sort=position&limit=100`));
    expect(list.items.map((x: { position: number }) => x.position)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(list.items[0].email).toMatch(/^real-/);
    // the seeded rows follow in the order the seeder wrote them (its emails end in their index)
    expect(list.items.slice(1, 4).map((x: { email: string }) => /(\d+)@/.exec(x.email)?.[1])).toEqual(['0', '1', '2']);
    // a join after the seed queues behind all of them
    const late = await postJoin(again.url, p.slug, p.key, { email: uniqueEmail('late') });
    expect(late.status).toBe(201);
    expect(late.body.data.position).toBe(152);
  });
});
