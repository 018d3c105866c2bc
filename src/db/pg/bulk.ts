// Many rows in one INSERT with one parameter per column: `INSERT … SELECT * FROM unnest($1::text[], …)`.
//
// drizzle's `.values(rows)` sends one parameter per cell and builds the statement cell by cell: for a
// join batch of 64 entries that is ~1,900 parameters, and the building alone was the largest item of
// the PostgreSQL join profile. Here each column travels as one array, the statement text depends only
// on the table and the columns given (so PostgreSQL sees the same text every time), and nothing is
// walked per cell but the array copy.
//
// A column no row gives (undefined in every row) is left out and gets its DEFAULT. Columns are typed
// from the drizzle table (`getSQLType()`), so the arrays are cast to exactly the column types.
import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { integer, literal } from './named.js';

interface Column {
  key: string;
  name: string;
  type: string;
}

const columnsOf = new WeakMap<PgTable, Column[]>();

function columns(table: PgTable): Column[] {
  let cols = columnsOf.get(table);
  if (!cols) {
    cols = Object.entries(getTableColumns(table)).map(([key, c]) => ({ key, name: c.name, type: c.getSQLType() }));
    columnsOf.set(table, cols);
  }
  return cols;
}

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The INSERT of `rows` into `table` (append `tail`, e.g. an ON CONFLICT clause and RETURNING). Every
 * row must give the same columns: a column given by some rows and undefined in others is refused
 * (TypeError), never silently written as NULL.
 */
export function bulkInsert<T extends object>(table: PgTable, rows: readonly T[], tail: SQL = sql``): SQL {
  const { names, unnest } = unnestOf(table, rows);
  return sql`INSERT INTO ${sql.raw(quote(getTableName(table)))} (${names}) SELECT * FROM unnest(${unnest}) ${tail}`;
}

/**
 * The column list of `rows` (quoted, comma separated) and the unnest arguments that carry them, one
 * typed array per column, for an INSERT that selects from `unnest(…) AS u(<names>, …)`.
 */
export function unnestOf<T extends object>(table: PgTable, rows: readonly T[]): { names: SQL; unnest: SQL; given: string[] } {
  if (!rows.length) throw new RangeError('bulkInsert needs at least one row');
  const given = columns(table).filter((c) => (rows[0] as Record<string, unknown>)[c.key] !== undefined);
  const arrays = given.map((c) =>
    rows.map((r) => {
      const v = (r as Record<string, unknown>)[c.key];
      if (v === undefined) throw new TypeError(`bulkInsert: column ${c.key} is given by some rows only`);
      return v;
    }),
  );
  for (const r of rows.slice(1))
    for (const c of columns(table))
      if (!given.includes(c) && (r as Record<string, unknown>)[c.key] !== undefined)
        throw new TypeError(`bulkInsert: column ${c.key} is given by some rows only`);
  const names = sql.raw(given.map((c) => quote(c.name)).join(', '));
  const unnest = sql.join(
    given.map((c, i) => sql`${sql.param(arrays[i])}::${sql.raw(c.type)}[]`),
    sql`, `,
  );
  return { names, unnest, given: given.map((c) => c.name) };
}

/**
 * `rows` as the rows of a `VALUES` list with their values inlined as literals, for a simple query of
 * several statements, where a statement can have no parameters (the join batch sends its INSERT with
 * its BEGIN: src/db/pg/join-batch.ts). Answers the quoted names of the columns given (as bulkInsert
 * picks them, less `omit`) and each row's values, comma separated. The first row's values carry their
 * column's type (`'…'::bigint`), which a `VALUES` list takes for the whole column, so a column of
 * NULLs or numbers is typed as its table column, not as text. Strings go through `literal` (named.ts),
 * numbers must be whole (`integer`), booleans are TRUE or FALSE; anything else throws (TypeError).
 */
export function literalRows<T extends object>(
  table: PgTable,
  rows: readonly T[],
  omit: readonly string[] = [],
): { names: string[]; values: string[] } {
  if (!rows.length) throw new RangeError('literalRows needs at least one row');
  const all = columns(table);
  const given = all.filter((c) => (rows[0] as Record<string, unknown>)[c.key] !== undefined && !omit.includes(c.key));
  const values = rows.map((r, i) => {
    const row = r as Record<string, unknown>;
    if (i > 0)
      for (const c of all)
        if ((row[c.key] === undefined) !== ((rows[0] as Record<string, unknown>)[c.key] === undefined))
          throw new TypeError(`literalRows: column ${c.key} is given by some rows only`);
    return given.map((c) => (i === 0 ? `${literalOf(row[c.key], c.key)}::${c.type}` : literalOf(row[c.key], c.key))).join(', ');
  });
  return { names: given.map((c) => quote(c.name)), values };
}

function literalOf(v: unknown, key: string): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return literal(v);
  if (typeof v === 'number') return integer(v);
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  throw new TypeError(`literalRows: column ${key} holds a ${typeof v}`);
}
