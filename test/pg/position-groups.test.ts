// PostgreSQL positions read the bucket counts through groups of 64 buckets (position_groups, migration
// 0009_position_groups.sql): the groups below an entry's group plus the buckets of its own group below
// its bucket. Queue keys here span several groups, negative ones included (referrals push k below 0),
// and every way a position is read (one entry, a page of up to 16, a bigger page) must equal a
// reference ranking computed from scratch; the group counts must equal the bucket counts they sum,
// also after joins, credits, invites and deletes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { dbQuery } from '../helpers/lifecycle.js';
import { createPgDatabase } from '../helpers/pg.js';
import { type Client, postJoin, projectWithKey, signedUp, startServer, type TestServer, uniqueEmail } from '../helpers/server.js';

const baseUrl = process.env.TEST_DATABASE_URL;
const N = 3000;

describe.skipIf(!baseUrl)('position groups on PostgreSQL', () => {
  let server: TestServer;
  let admin: Client;
  let p: Awaited<ReturnType<typeof projectWithKey>>;

  beforeAll(async () => {
    const url = await createPgDatabase(baseUrl!);
    server = await startServer({ reuse: { dbFile: '/nonexistent', dbEnv: { DATABASE_URL: url } } });
    admin = await signedUp(server.url);
    p = await projectWithKey(admin);
    ok(await admin.put(`/api/project/${p.projectId}/settings`, { referralBoost: 5 }));
    // Ordinals 97 apart (k up to ~291,000: five groups), referrals up to 1,800 (k down to ~-9,000),
    // every eleventh entry invited (not ranked).
    await dbQuery(
      server,
      `INSERT INTO entries (id, project_id, email, email_norm, name, source, metadata, created_at, updated_at, status,
         ordinal, k, referral_code, referrals, fields)
       SELECT 'ent_grp' || lpad(i::text, 6, '0'), ?, 'g' || i || '@example.com', 'g' || i || '@example.com', 'G ' || i,
         'test', '{}', 1, 1, CASE WHEN i % 11 = 0 THEN 'invited' ELSE 'waiting' END,
         i * 97, i * 97 - 5 * (i % 7) * 300, 'grp' || i, (i % 7) * 300, '{}'
       FROM generate_series(1, ${N}) AS i`,
      [p.projectId],
    );
    await dbQuery(server, 'UPDATE entry_ordinals SET last = ? WHERE project_id = ?', [N * 97, p.projectId]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const reference = async () =>
    new Map(
      (
        await dbQuery<{ id: string; pos: string }>(
          server,
          `SELECT id, row_number() OVER (ORDER BY k, ordinal) AS pos FROM entries
           WHERE project_id = ? AND status = 'waiting' AND deleted_at IS NULL`,
          [p.projectId],
        )
      ).map((r) => [r.id, Number(r.pos)]),
    );
  const groupsAgree = async () => {
    const groups = await dbQuery<{ grp: string; n: string }>(
      server,
      'SELECT grp::text, n::text FROM position_groups WHERE project_id = ? AND n <> 0 ORDER BY grp',
      [p.projectId],
    );
    const fromBuckets = await dbQuery<{ grp: string; n: string }>(
      server,
      `SELECT (bucket >> 6)::text AS grp, sum(n)::text AS n FROM position_buckets WHERE project_id = ?
       GROUP BY bucket >> 6 HAVING sum(n) <> 0 ORDER BY bucket >> 6`,
      [p.projectId],
    );
    expect(groups).toEqual(fromBuckets);
    return groups;
  };

  it('groups sum their buckets, and several groups (negative ones too) are in use', async () => {
    const groups = await groupsAgree();
    expect(groups.length).toBeGreaterThanOrEqual(5);
    expect(groups.some((g) => Number(g.grp) < 0)).toBe(true);
  });

  it('one entry, pages of 10 and pages of 100 all give the reference positions; so does the total', async () => {
    const ref = await reference();
    const seen = new Map<string, number | null>();
    for (const limit of [10, 100]) {
      for (let page = 1; ; page++) {
        const d = ok(await admin.get(`/api/project/${p.projectId}/waitlist?limit=${limit}&page=${page}`));
        for (const e of d.items as { entryId: string; position: number | null }[]) {
          expect(e.position, `${e.entryId} (limit ${limit})`).toBe(ref.get(e.entryId) ?? null);
          seen.set(e.entryId, e.position);
        }
        if (page * limit >= d.total) break;
        if (limit === 10 && page >= 40) break; // 400 entries through the small-page path is plenty
      }
    }
    expect(seen.size).toBe(N);
    for (const id of ['ent_grp000001', 'ent_grp001500', 'ent_grp002999', 'ent_grp000700']) {
      const e = ok(await admin.get(`/api/project/${p.projectId}/waitlist/${id}`));
      expect(e.position, id).toBe(ref.get(id) ?? null);
    }
    const queue = ok(await admin.get(`/api/project/${p.projectId}/waitlist?sort=position&limit=5`));
    expect(queue.total).toBe(ref.size);
  });

  it('after joins, credits, invites and deletes the groups still agree and positions still match', async () => {
    for (let i = 0; i < 20; i++) {
      const ref = i % 2 ? { ref: `grp${1 + ((i * 389) % N)}` } : {};
      ok(await postJoin(server.url, p.slug, p.key, { email: uniqueEmail('grp'), ...ref }), 201);
    }
    ok(await admin.post(`/api/project/${p.projectId}/invites`, { count: 150 }));
    for (const id of ['ent_grp000010', 'ent_grp001234', 'ent_grp002500']) ok(await admin.del(`/api/project/${p.projectId}/waitlist/${id}`));
    await groupsAgree();
    const ref = await reference();
    const d = ok(await admin.get(`/api/project/${p.projectId}/waitlist?limit=100&page=3`));
    for (const e of d.items as { entryId: string; position: number | null }[])
      expect(e.position, e.entryId).toBe(ref.get(e.entryId) ?? null);
    const total = await dbQuery<{ n: string }>(server, 'SELECT sum(n)::text AS n FROM position_groups WHERE project_id = ?', [p.projectId]);
    expect(Number(total[0]!.n)).toBe(ref.size);
  });
});
