// Expired rate-limit rows on PostgreSQL are swept every minute (src/db/pg/store.ts sweepRateLimits):
// clients from many addresses leave a row each, and the old sweep (rows an hour past their expiry,
// every 5 minutes) let a flood from rotating addresses pile up hundreds of MB (resource-exhaustion audit).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStore } from '../../src/db/pg/store.js';
import type { Store } from '../../src/db/store.js';
import { createPgDatabase } from '../helpers/pg.js';

const baseUrl = process.env.TEST_DATABASE_URL;
if (!baseUrl) console.warn('[waitlist] PostgreSQL rate-limit sweep test skipped: TEST_DATABASE_URL is not set');

describe.skipIf(!baseUrl)('the rate-limit sweep on PostgreSQL', () => {
  let url: string;
  let store: Store & { sweepRateLimits(now?: number): Promise<number> };
  let client: pg.Client;

  beforeAll(async () => {
    url = await createPgDatabase(baseUrl!);
    store = (await openPgStore(url)) as typeof store;
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await store?.close();
  });

  it('deletes the rows that have expired and keeps the live ones', async () => {
    const short = store.rateLimiter({ keyPrefix: 'sweep-short', points: 5, duration: 1 });
    const long = store.rateLimiter({ keyPrefix: 'sweep-long', points: 5, duration: 3600 });
    for (let i = 0; i < 50; i++) await short.consume(`203.0.113.${i}`);
    await long.consume('198.51.100.1');
    const keys = async () =>
      (await client.query<{ key: string }>(`SELECT key FROM rate_limits WHERE key LIKE 'sweep-%' ORDER BY key`)).rows.map((r) => r.key);
    expect(await keys()).toHaveLength(51);
    expect(await store.sweepRateLimits()).toBe(0); // nothing has expired yet
    // A second later the 1-second rows have expired: the sweep as it runs then takes them, only them.
    expect(await store.sweepRateLimits(Date.now() + 1_500)).toBe(50);
    expect(await keys()).toEqual(['sweep-long:198.51.100.1']);
  });
});
