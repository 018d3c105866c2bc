// /healthz (liveness) and /readyz (readiness) on SQLite: ready while the file takes writes, 503 with the
// reason while another process holds the write lock, ready again once it lets go; cached for a second.
// (PostgreSQL's /readyz is covered by test/infra/pg-outage.test.ts.)
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, DIALECT, useServer } from '../helpers/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(DIALECT !== 'sqlite')('liveness and readiness on SQLite', () => {
  let c: Client;

  const srv = useServer();
  beforeAll(async () => {
    c = new Client(srv.url);
  });

  it('GET /readyz → 200 with each check, not cached by intermediaries', async () => {
    const r = await c.get('/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', data: { status: 'ready' } });
    expect(r.body.data.checks.map((x: { name: string; ok: boolean }) => [x.name, x.ok])).toEqual([['database', true]]);
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('another process holding the write lock → 503 with the reason, /healthz still 200, then ready again', async () => {
    await sleep(1_100); // past the cached answer
    const other = new Database(srv.dbFile);
    other.exec('BEGIN EXCLUSIVE');
    try {
      const started = Date.now();
      const r = await c.get('/readyz');
      expect(Date.now() - started).toBeLessThan(1_000); // the probe does not wait on the lock
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('service_unavailable');
      expect(r.body.message).toBe('Not ready: database: the database file is locked');
      expect(r.headers.get('retry-after')).toBe('1');
      expect((await c.get('/healthz')).status).toBe(200);
      // Within the cache period the answer is the same, without probing again.
      expect((await c.get('/readyz')).status).toBe(503);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await c.get('/readyz')).status).toBe(503); // still the cached answer
    await sleep(1_100);
    expect((await c.get('/readyz')).status).toBe(200);
  });
});
