// SIGKILL during a 10,000-entry invite batch: afterwards the batch is there entirely or not at all.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dbQuery } from '../helpers/lifecycle.js';
import { cleanup, Client, DIALECT, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

const N = 10_000;
let server: TestServer;
let admin: Client;
let projectId: string;

beforeAll(async () => {
  server = await startServer();
  admin = await signedUp(server.url);
  projectId = (await projectWithKey(admin)).projectId;
  // Seed straight into the table (the triggers keep the queue counts): 10,000 joins over HTTP would be slow.
  const now = Date.now();
  if (DIALECT === 'sqlite') {
    await dbQuery(
      server,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${N})
       INSERT INTO entries (id, project_id, email, email_norm, name, source, metadata, created_at, updated_at, status, ordinal, k, referral_code)
       SELECT printf('ent_seed%08d', i), ?, printf('s%d@example.com', i), printf('s%d@example.com', i), NULL, 'seed', '{}', ? + i, ? + i,
              'waiting', i, i, printf('seed%08d', i) FROM n`,
      [projectId, now, now],
    );
  } else {
    await dbQuery(
      server,
      `INSERT INTO entries (id, project_id, email, email_norm, name, source, metadata, created_at, updated_at, status, ordinal, k, referral_code)
       SELECT 'ent_seed' || lpad(i::text, 8, '0'), ?, 's' || i || '@example.com', 's' || i || '@example.com', NULL, 'seed', '{}',
              ?::bigint + i, ?::bigint + i, 'waiting', i, i, 'seed' || lpad(i::text, 8, '0') FROM generate_series(1, ${N}) AS i`,
      [projectId, now, now],
    );
  }
  await dbQuery(server, 'INSERT INTO entry_ordinals (project_id, last) VALUES (?, ?)', [projectId, N]);
});
afterAll(async () => {
  await server.stop();
  cleanup(server);
});

it('SIGKILL in the middle of inviting 10,000: all or nothing, and the queue counts stay exact', { timeout: 240_000 }, async () => {
  // An uninterrupted batch first, to time it: the kills below land at fractions of that time.
  const t0 = Date.now();
  const full = await admin.post(`/api/project/${projectId}/invites`, { count: N });
  const took = Date.now() - t0;
  expect(full.status).toBe(200);
  expect(full.body.data.invited).toHaveLength(N);
  console.log(`[invite-crash] ${N} invites over HTTP in ${took} ms (${DIALECT})`);
  await dbQuery(server, `UPDATE entries SET status = 'waiting', invite_code_hash = NULL WHERE project_id = ?`, [projectId]);
  const outcomes: number[] = [];
  for (const delayMs of [0.2, 0.5, 0.8, 3].map((f) => Math.round(f * took))) {
    const pending = admin.post(`/api/project/${projectId}/invites`, { count: N }).catch(() => null);
    await new Promise((r) => setTimeout(r, delayMs));
    await server.stop('SIGKILL');
    await pending;
    server = await startServer({ reuse: { dbFile: server.dbFile, dbEnv: server.dbEnv } });
    const cookie = admin.cookie; // the session lives in the database: it survives the restart
    admin = new Client(server.url);
    admin.cookie = cookie;
    const [{ n }] = (await dbQuery<{ n: number | string }>(
      server,
      `SELECT count(*) AS n FROM entries WHERE project_id = ? AND status = 'invited'`,
      [projectId],
    )) as [{ n: number | string }];
    expect([0, N]).toContain(Number(n));
    outcomes.push(Number(n));
    // the bucket table agrees with the rows
    const [{ b }] = (await dbQuery<{ b: number | string }>(
      server,
      'SELECT coalesce(sum(n), 0) AS b FROM position_buckets WHERE project_id = ?',
      [projectId],
    )) as [{ b: number | string }];
    const [{ w }] = (await dbQuery<{ w: number | string }>(
      server,
      `SELECT count(*) AS w FROM entries WHERE project_id = ? AND status = 'waiting' AND deleted_at IS NULL`,
      [projectId],
    )) as [{ w: number | string }];
    expect(Number(b)).toBe(Number(w));
    if (DIALECT === 'pg') {
      // and so do the groups of buckets that PostgreSQL sums positions from
      const [{ g }] = (await dbQuery<{ g: number | string }>(
        server,
        'SELECT coalesce(sum(n), 0) AS g FROM position_groups WHERE project_id = ?',
        [projectId],
      )) as [{ g: number | string }];
      expect(Number(g)).toBe(Number(w));
    }
    await dbQuery(server, `UPDATE entries SET status = 'waiting', invite_code_hash = NULL WHERE project_id = ?`, [projectId]);
  }
  console.log(`[invite-crash] invited after each SIGKILL: ${outcomes.join(', ')}`);
});
