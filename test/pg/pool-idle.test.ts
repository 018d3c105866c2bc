// The PostgreSQL pool keeps two connections open while the server is idle (src/db/pg-options.ts
// PG_IDLE_KEPT): a new backend runs its first queries cold, so a dashboard used every few seconds
// would otherwise meet a fresh one on most requests. The connections past two still close when idle.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../helpers/pg.js';
import { projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

const baseUrl = process.env.TEST_DATABASE_URL;
if (!baseUrl) console.warn('[waitlist] PostgreSQL pool tests skipped: TEST_DATABASE_URL is not set');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!baseUrl)('the PostgreSQL pool while idle', () => {
  let srv: TestServer;
  let admin: pg.Client;
  let dbName: string;

  beforeAll(async () => {
    const url = await createPgDatabase(baseUrl!);
    dbName = new URL(url).pathname.slice(1);
    srv = await startServer({ reuse: { dbFile: '/nonexistent', dbEnv: { DATABASE_URL: url } }, args: ['--pg-pool-size', '6'] });
    admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await srv?.stop();
    await admin?.end();
  });

  const backends = async () =>
    Number(
      (
        await admin.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'waitlist'`,
          [dbName],
        )
      ).rows[0]!.n,
    );

  it('keeps two connections after 12 s without requests, and closes the others', { timeout: 40_000 }, async () => {
    const owner = await signedUp(srv.url);
    const { projectId } = await projectWithKey(owner);
    // Enough requests at once to open every connection of the pool.
    const answers = await Promise.all(Array.from({ length: 40 }, () => owner.get(`/api/project/${projectId}/waitlist?page=1&limit=20`)));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    const busy = await backends();
    expect(busy).toBeGreaterThan(2);
    await sleep(12_000); // pg closes a pool connection idle for 10 s
    const idle = await backends();
    expect(idle).toBeGreaterThanOrEqual(2);
    expect(idle).toBeLessThan(busy);
    // And they still answer.
    expect((await owner.get(`/api/project/${projectId}/waitlist?page=1&limit=20`)).status).toBe(200);
  });
});
