// Fresh PostgreSQL databases for tests: one per server, created from TEST_DATABASE_URL's cluster.
import pg from 'pg';
import { randomBytes } from 'node:crypto';

// Per `vitest run` (set in vitest.config.ts, inherited by the workers), so concurrent runs on one
// cluster never drop each other's databases.
export const PREFIX = `wl_t_${process.env.WAITLIST_TEST_RUN ?? 'x'}_`;

/** Creates an empty database on the cluster of `baseUrl` and returns its URL. */
export async function createPgDatabase(baseUrl: string): Promise<string> {
  const name = `${PREFIX}${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops every database this run created, disconnecting their clients. */
export async function dropPgDatabases(baseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE '${PREFIX}%'`);
    for (const r of rows) await client.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
    return rows.length;
  } finally {
    await client.end();
  }
}
