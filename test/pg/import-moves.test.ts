// The reorder at the end of an import on PostgreSQL runs as a plan of moves (src/db/pg/reorder.ts), made
// in short transactions: a reorder cut short between two of them (some rows sharing an ordinal) is
// finished by the next server to open the database, before it serves.
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPgStore } from '../../src/db/pg/store.js';
import { moveSome, planMoves } from '../../src/db/pg/reorder.js';
import { createPgDatabase } from '../helpers/pg.js';
import { entry, projectWithKeyIn } from '../store/conformance.js';

const baseUrl = process.env.TEST_DATABASE_URL;
const BATCH = 15_000;
const N = 3 * BATCH;
const T0 = Date.UTC(2024, 0, 1);

describe.skipIf(!baseUrl)('an import reorder cut short on PostgreSQL', () => {
  const clients: pg.Client[] = [];
  afterAll(async () => {
    for (const c of clients) await c.end();
  });

  it('is finished by the next store to open the database', async () => {
    const url = await createPgDatabase(baseUrl!);
    const store = await openPgStore(url);
    const { p, k } = await projectWithKeyIn(store);
    await store.insertEntry(entry(p.id), k.id);
    const rows = Array.from({ length: N }, (_, j) => entry(p.id, { createdAt: T0 + (N - j) * 1000 }));
    const ranges: [number, number][] = [];
    for (let b = 0; b < N; b += BATCH) {
      const { inserted, first } = await store.importEntries(rows.slice(b, b + BATCH).sort((x, y) => x.createdAt - y.createdAt));
      ranges.push([first, first + inserted - 1]);
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    const db = drizzle(client);
    // The plan (30,000 moves: the middle batch is in place), then one transaction of 10,000 moves only.
    const { planId, moves } = await planMoves(db, p.id, ranges);
    expect(moves).toBe(2 * BATCH);
    expect(await moveSome(db, planId, p.id, 0)).toEqual({ planned: 10_000, moved: 10_000 });
    const shared = async () =>
      Number((await client.query('SELECT count(*) - count(DISTINCT ordinal) AS n FROM entries WHERE project_id = $1', [p.id])).rows[0].n);
    expect(await shared()).toBeGreaterThan(0);
    const left = async () => Number((await client.query('SELECT count(*) AS n FROM import_moves')).rows[0].n);
    expect(await left()).toBe(20_000);
    await store.close();

    const reopened = await openPgStore(url);
    expect(await left()).toBe(0);
    const order = (
      await client.query(
        'SELECT ordinal::int AS o, k::int AS k, created_at::float8 AS c FROM entries WHERE project_id = $1 ORDER BY ordinal',
        [p.id],
      )
    ).rows as { o: number; k: number; c: number }[];
    expect(order.map((r) => r.o)).toEqual(Array.from({ length: N + 1 }, (_, i) => i + 1));
    expect(order.every((r) => r.k === r.o)).toBe(true);
    for (let i = 2; i < order.length; i++) expect(order[i]!.c).toBeGreaterThan(order[i - 1]!.c);
    await reopened.close();
  }, 120_000);
});
