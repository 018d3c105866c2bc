// Named statements for the join path (src/db/pg/named.ts): a statement is prepared once per
// connection and reused, values come back as given, a transaction commits or rolls back whole, and a
// connection whose transaction could not even be rolled back is closed instead of going back to the pool.
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Exec, inTransaction, integer, literal, named } from '../../src/db/pg/named.js';
import { createPgDatabase } from '../helpers/pg.js';

const baseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!baseUrl)('named statements on PostgreSQL', () => {
  let pool: pg.Pool;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await createPgDatabase(baseUrl!), max: 2 });
    // As the store does: a backend that dies is reported on its client, not thrown at the process.
    pool.on('error', () => undefined);
    pool.on('connect', (c) => c.on('error', () => undefined));
    await pool.query('CREATE TABLE named_t (id text PRIMARY KEY, n bigint NOT NULL)');
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('prepares a statement once per connection and reuses it, with the values of each call', async () => {
    const client = await pool.connect();
    try {
      const exec = named(client);
      const prepared = async () =>
        (await client.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map((r) => r.statement);
      expect(await prepared()).toEqual([]);
      for (const [id, n] of [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ] as const) {
        const r = await exec.execute<{ id: string; n: string }>(sql`INSERT INTO named_t (id, n) VALUES (${id}, ${n}) RETURNING id, n`);
        expect(r.rows).toEqual([{ id, n: String(n) }]);
      }
      const texts = await prepared();
      expect(texts).toHaveLength(1);
      expect(texts[0]).toMatch(/^INSERT INTO named_t/);
      // Another text gets a statement of its own; the first is still there.
      const r = await exec.execute<{ n: string }>(sql`SELECT sum(n) AS n FROM named_t WHERE id = ANY(${sql.param(['a', 'c'])}::text[])`);
      expect(r.rows[0]!.n).toBe('4');
      expect(await prepared()).toHaveLength(2);
    } finally {
      client.release();
    }
  });

  // A transaction of named statements on one pooled connection, as the join batch runs its own.
  const namedTransaction = (p: pg.Pool, fn: (tx: Exec) => Promise<void>) =>
    inTransaction(p, async (client) => {
      await client.query('BEGIN');
      await fn(named(client));
      await client.query('COMMIT');
    });

  it('commits a transaction when its function resolves, and rolls all of it back when it throws', async () => {
    await namedTransaction(pool, async (tx) => {
      await tx.execute(sql`INSERT INTO named_t (id, n) VALUES (${'t1'}, ${10})`);
      await tx.execute(sql`INSERT INTO named_t (id, n) VALUES (${'t2'}, ${11})`);
    });
    await expect(
      namedTransaction(pool, async (tx) => {
        await tx.execute(sql`INSERT INTO named_t (id, n) VALUES (${'t3'}, ${12})`);
        await tx.execute(sql`INSERT INTO named_t (id, n) VALUES (${'t1'}, ${13})`); // duplicate key
      }),
    ).rejects.toThrow(/duplicate key/);
    const r = await pool.query<{ id: string }>("SELECT id FROM named_t WHERE id LIKE 't%' ORDER BY id");
    expect(r.rows.map((x) => x.id)).toEqual(['t1', 't2']);
    // The failed transaction's connection went back clean: the pool still works on both connections.
    const both = await Promise.all([pool.connect(), pool.connect()]);
    for (const c of both) {
      expect((await c.query('SELECT 1 AS one')).rows[0].one).toBe(1);
      c.release();
    }
  });

  it('inlines values for a simple query of several statements: any string comes back as given, only whole numbers pass', async () => {
    const tricky = ["o'brien", 'back\\slash', "'); DROP TABLE named_t; --", 'naïve ☃', "\\'", ''];
    const results = (await pool.query(
      `BEGIN; ${tricky.map((v, i) => `INSERT INTO named_t (id, n) VALUES (${literal(`lit${i}${v}`)}, ${integer(i)})`).join('; ')};
       SELECT id, n FROM named_t WHERE id LIKE 'lit%' ORDER BY n; COMMIT`,
    )) as unknown as pg.QueryResult<{ id: string; n: string }>[];
    expect(results.at(-2)!.rows.map((r) => r.id)).toEqual(tricky.map((v, i) => `lit${i}${v}`));
    // The same text reads the same with standard_conforming_strings off (backslashes go in E'…').
    const off = (await pool.query(
      `BEGIN; SET LOCAL standard_conforming_strings = off; SELECT ${tricky.map((v, i) => `${literal(v)} AS c${i}`).join(', ')}; COMMIT`,
    )) as unknown as pg.QueryResult<Record<string, string>>[];
    expect(Object.values(off[2]!.rows[0]!)).toEqual(tricky);
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) expect(() => integer(bad)).toThrow(TypeError);
    expect(integer(-3)).toBe('-3');
  });

  it('closes a connection that died inside the transaction instead of returning it to the pool', async () => {
    let pid = 0;
    await expect(
      namedTransaction(pool, async (tx) => {
        pid = Number((await tx.execute<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid);
        // Another connection ends this one's backend, as a restart or an idle timeout would.
        await pool.query('SELECT pg_terminate_backend($1)', [pid]).catch(() => undefined);
        await tx.execute(sql`SELECT 1`);
      }),
    ).rejects.toThrow();
    // Every connection the pool hands out afterwards is a live one, never the dead backend.
    for (let i = 0; i < 4; i++) {
      const r = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(r.rows[0]!.pid).not.toBe(pid);
    }
  });
});
