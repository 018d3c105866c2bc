// The join path's statements as named (prepared) statements.
//
// drizzle sends every `execute` as an unnamed statement, which PostgreSQL parses, analyses and plans
// again each time. For a join batch's INSERT that crediting referrers (a data-modifying CTE, see
// insertCrediting) the planning alone took 0.4 ms of a 4 ms statement, paid once per batch. A named
// statement is parsed once per connection, and after five executions PostgreSQL keeps a generic plan.
// Measured on a 40k-entry project, 30-row batches, BEGIN/statement/ROLLBACK (2026-11-24): a batch with
// three referred joins 4.29 → 3.40 ms, with none 3.12 → 2.82 ms.
//
// Names are derived from the statement text (node-postgres refuses a name reused with another text on
// the same connection), and only a bounded number of texts are named: the join path has a handful, and
// anything past the bound is sent unnamed as before. Behind PgBouncer, session pooling keeps them working
// (transaction pooling needs PgBouncer 1.21+ with `max_prepared_statements`; docs/postgresql.md).
import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type * as s from './schema.js';

/** What the join path's helpers need of a connection: drizzle's `execute` (its db and tx have it). */
export type Exec = Pick<NodePgDatabase<typeof s>, 'execute'>;

const dialect = new PgDialect();
const MAX_NAMED = 64;
const names = new Map<string, string>();

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `wl_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/** Runs drizzle `sql` on a pg client (or the pool) as a named statement. */
export function named(client: pg.ClientBase | pg.Pool): Exec {
  // Typed as drizzle's execute, whose result its callers only await: a plain promise of the same
  // node-postgres QueryResult.
  return {
    async execute(query: SQL) {
      const { sql: text, params } = dialect.sqlToQuery(query);
      return client.query({ name: nameOf(text), text, values: params as unknown[] });
    },
  } as unknown as Exec;
}

/**
 * `fn` on one pooled connection, which opens and commits its own transaction (BEGIN and COMMIT may
 * share a query with other statements: see the join batch, src/db/pg/store.ts). When `fn` throws, the
 * transaction is rolled back; a connection that failed (its ROLLBACK failed too) is closed, not reused.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    try {
      return await fn(client);
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => {
        broken = e;
      });
      throw err;
    }
  } finally {
    client.release(broken);
  }
}

/**
 * A string as an SQL literal, for a simple query (several statements, no parameters): the same text
 * as `pg.escapeLiteral` (quotes doubled; with a backslash, backslashes doubled too and the literal
 * written E'…', so it reads the same whatever `standard_conforming_strings` is). That function builds
 * its answer a character at a time, 8–9 µs for a webhook payload of 600 bytes against under 1 µs here
 * (docs/performance.md, round twenty-eight); a join batch inlines every value of its rows and payloads.
 */
export function literal(value: string): string {
  return value.includes('\\') ? ` E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'` : `'${value.replaceAll("'", "''")}'`;
}

/** A whole number as SQL text, for a simple query; anything else throws. */
export function integer(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not a whole number: ${value}`);
  return String(value);
}

/** drizzle `sql` on the pool with rows as arrays of column values (no row objects, no drizzle mapping). */
export async function arrayRows(pool: pg.Pool, query: SQL): Promise<unknown[][]> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return (await pool.query({ text, values: params as unknown[], rowMode: 'array' })).rows as unknown[][];
}
