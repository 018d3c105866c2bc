// bulkInsert (src/db/pg/bulk.ts) sends each column as one array: every value must come back exactly
// as given (quotes, backslashes, braces, commas, the word NULL, newlines, non-ASCII), NULLs stay NULL,
// a column no row gives gets its DEFAULT, and rows that disagree on their columns are refused.
import { sql } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { bigint, boolean, integer, pgTable, text } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkInsert, literalRows } from '../../src/db/pg/bulk.js';
import { createPgDatabase } from '../helpers/pg.js';

const baseUrl = process.env.TEST_DATABASE_URL;

const t = pgTable('bulk_t', {
  id: text('id').primaryKey(),
  label: text('label'),
  at: bigint('at', { mode: 'number' }).notNull(),
  n: integer('n').notNull().default(7),
  flag: boolean('flag').notNull().default(false),
});

describe.skipIf(!baseUrl)('bulkInsert on PostgreSQL', () => {
  let client: pg.Client;
  let db: NodePgDatabase;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: await createPgDatabase(baseUrl!) });
    await client.connect();
    db = drizzle(client);
    await client.query(
      `CREATE TABLE bulk_t (id text PRIMARY KEY, label text, at bigint NOT NULL, n integer NOT NULL DEFAULT 7,
         flag boolean NOT NULL DEFAULT false)`,
    );
  });
  afterAll(async () => {
    await client?.end();
  });

  it('writes every value exactly, NULLs as NULL, left-out columns as their DEFAULT', async () => {
    const labels = [
      'plain',
      'a "quoted" word',
      'back\\slash',
      '{braces}',
      'a,comma',
      'NULL',
      'line\nbreak',
      'İstanbul ß 日本 😀',
      '',
      null,
    ];
    const rows = labels.map((label, i) => ({ id: `r${i}`, label, at: 1_795_000_000_000 + i }));
    const r = await db.execute<{ id: string }>(bulkInsert(t, rows, sql`RETURNING id`));
    expect(r.rows.map((x) => x.id)).toEqual(rows.map((x) => x.id));
    const back = await client.query('SELECT id, label, at::text AS at, n, flag FROM bulk_t ORDER BY at');
    expect(back.rows).toEqual(rows.map((x) => ({ id: x.id, label: x.label, at: String(x.at), n: 7, flag: false })));
  });

  it('skips conflicting rows with ON CONFLICT DO NOTHING, also inside one batch', async () => {
    const r = await db.execute<{ id: string }>(
      bulkInsert(
        t,
        [
          { id: 'r0', label: 'again', at: 1, n: 1, flag: true },
          { id: 'new1', label: 'x', at: 2, n: 2, flag: true },
          { id: 'new1', label: 'twice', at: 3, n: 3, flag: true },
        ],
        sql`ON CONFLICT (id) DO NOTHING RETURNING id`,
      ),
    );
    expect(r.rows).toEqual([{ id: 'new1' }]);
    const back = await client.query(`SELECT label, n, flag FROM bulk_t WHERE id IN ('r0', 'new1') ORDER BY id`);
    expect(back.rows).toEqual([
      { label: 'x', n: 2, flag: true },
      { label: 'plain', n: 7, flag: false },
    ]);
  });

  it('refuses rows that give different columns, and an empty batch', () => {
    expect(() =>
      bulkInsert(t, [
        { id: 'a', at: 1 },
        { id: 'b', at: 2, n: 3 },
      ]),
    ).toThrow(TypeError);
    expect(() =>
      bulkInsert(t, [
        { id: 'a', at: 1, n: 3 },
        { id: 'b', at: 2 },
      ]),
    ).toThrow(TypeError);
    expect(() => bulkInsert(t, [])).toThrow(RangeError);
  });

  it('inlines rows as literals for a simple query (literalRows): every value exact, NULL and number columns typed by the first row', async () => {
    const labels = ['plain', "o'brien", 'back\\slash', "\\'", 'NULL', 'line\nbreak', 'İstanbul 😀', '', null];
    // The first row's label is NULL and its n a number: without the casts the VALUES column would be text.
    const rows = [null, ...labels].map((label, i) => ({ id: `lit${i}`, label, at: 1_796_000_000_000 + i, n: i, flag: i % 2 === 0 }));
    const { names, values } = literalRows(t, rows);
    expect(names).toEqual(['"id"', '"label"', '"at"', '"n"', '"flag"']);
    await client.query(`INSERT INTO bulk_t (${names.join(', ')}) SELECT * FROM (VALUES ${values.map((v) => `(${v})`).join(', ')}) AS v`);
    const back = await client.query("SELECT id, label, at::text AS at, n, flag FROM bulk_t WHERE id LIKE 'lit%' ORDER BY at");
    expect(back.rows).toEqual(rows.map((r) => ({ ...r, at: String(r.at) })));
    // `omit` leaves a column out; rows that disagree, values that are not whole numbers, and no rows are refused.
    expect(literalRows(t, [{ id: 'x', at: 1, n: 2 }], ['n']).names).toEqual(['"id"', '"at"']);
    expect(() =>
      literalRows(t, [
        { id: 'a', at: 1 },
        { id: 'b', at: 2, n: 3 },
      ]),
    ).toThrow(TypeError);
    expect(() => literalRows(t, [{ id: 'a', at: 1.5 }])).toThrow(TypeError);
    expect(() => literalRows(t, [{ id: 'a', at: 1, label: {} }])).toThrow(TypeError);
    expect(() => literalRows(t, [])).toThrow(RangeError);
  });
});
