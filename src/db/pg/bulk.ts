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
