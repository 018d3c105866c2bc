// Helpers of the lifecycle tests: direct database access (to check erasure and to plant a known
// confirmation token, which only ever travels by email), and key creation by kind.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { DIALECT, type Client, type TestServer } from './server.js';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Runs one SQL statement on the server's database (`?` placeholders on both dialects). */
export async function dbQuery<T = Record<string, unknown>>(server: TestServer, sql: string, params: unknown[] = []): Promise<T[]> {
  if (DIALECT === 'sqlite') {
    const db = new Database(server.dbFile);
    try {
      const st = db.prepare(sql);
      return (st.reader ? st.all(...params) : (st.run(...params), [])) as T[];
    } finally {
      db.close();
    }
  }
  let i = 0;
  const client = new pg.Client({ connectionString: server.dbEnv.DATABASE_URL });
  await client.connect();
  try {
    return (
      await client.query(
        sql.replace(/\?/g, () => `$${++i}`),
        params,
      )
    ).rows as T[];
  } finally {
    await client.end();
  }
}

export async function createKey(c: Client, projectId: string, kind?: 'publishable' | 'secret') {
  const r = await c.post(`/api/project/${projectId}/apikey`, { name: `${kind ?? 'default'} key`, ...(kind ? { kind } : {}) });
  if (r.status !== 201) throw new Error(`create key failed: ${r.text}`);
  return r.body.data as { keyId: string; key: string; kind: string; prefix: string };
}

export const bearer = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });
