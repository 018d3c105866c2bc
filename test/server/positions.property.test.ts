// Property: after a random mix of joins (with and without referrals), confirmations, deletions,
// invites and referralBoost changes, run concurrently (on PostgreSQL over two server instances), the
// positions and referral counts the API shows equal a reference computed from scratch from the rows.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { dbQuery, sha256 } from '../helpers/lifecycle.js';
import { Client, DIALECT, postJoin, projectWithKey, signedUp, serversForFile, uniqueEmail, type TestServer } from '../helpers/server.js';

const SMTP = { WAITLIST_SMTP_URL: 'smtp://127.0.0.1:9' };
const start = serversForFile();
let a: TestServer;
let b: TestServer | undefined;
let admin: Client;

beforeAll(async () => {
  a = await start({ env: SMTP, args: ['--open-signup'] });
  if (DIALECT === 'pg') b = await start({ env: SMTP, args: ['--open-signup'], reuse: { dbFile: a.dbFile, dbEnv: a.dbEnv } });
  admin = await signedUp(a.url);
});

type Op =
  | { t: 'join'; ref: number | null; pending: boolean }
  | { t: 'confirm'; i: number }
  | { t: 'delete'; i: number }
  | { t: 'invite'; n: number }
  | { t: 'boost'; v: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ t: fc.constant('join' as const), ref: fc.option(fc.nat(40), { nil: null }), pending: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('confirm' as const), i: fc.nat(40) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), i: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('invite' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('boost' as const), v: fc.integer({ min: 0, max: 4 }) }) },
);

interface Joined {
  entryId: string;
  referralCode: string;
}

async function allEntries(projectId: string) {
  const out: { entryId: string; status: string; position: number | null; referrals: number; referredBy: string | null }[] = [];
  for (let page = 1; ; page++) {
    const d = ok(await admin.get(`/api/project/${projectId}/waitlist?limit=100&page=${page}`));
    out.push(...d.items);
    if (page >= d.totalPages) return out;
  }
}

describe('exact positions under a random mix of operations', () => {
  it('the API equals a reference computed from scratch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 40 }), async (ops) => {
        const p = await projectWithKey(admin);
        ok(await admin.put(`/api/project/${p.projectId}/settings`, { referralBoost: 2 }));
        const joined: Joined[] = [];
        const urls = b ? [a.url, b.url] : [a.url];
        let n = 0;
        const run = async (o: Op) => {
          const url = urls[n++ % urls.length]!;
          const c = new Client(url);
          c.cookie = admin.cookie;
          if (o.t === 'join') {
            const ref = o.ref !== null && joined.length ? joined[o.ref % joined.length]!.referralCode : undefined;
            // doubleOptIn is per project: toggle it for this join only when asked (serialised below)
            const r = await postJoin(url, p.slug, p.key, { email: uniqueEmail('prop'), ...(ref ? { ref } : {}) });
            if (r.status === 201) joined.push({ entryId: r.body.data.entryId, referralCode: r.body.data.referralCode });
          } else if (o.t === 'confirm' && joined.length) {
            const e = joined[o.i % joined.length]!;
            const token = `t-${e.entryId}`;
            await dbQuery(a, 'UPDATE entries SET confirm_token_hash = ? WHERE id = ?', [sha256(token), e.entryId]);
            await c.post(`/v1/waitlist/${p.slug}/confirm`, { token });
          } else if (o.t === 'delete' && joined.length) {
            await c.del(`/api/project/${p.projectId}/waitlist/${joined[o.i % joined.length]!.entryId}`);
          } else if (o.t === 'invite') {
            await c.post(`/api/project/${p.projectId}/invites`, { count: o.n });
          } else if (o.t === 'boost') {
            await c.put(`/api/project/${p.projectId}/settings`, { referralBoost: o.v });
          }
        };
        // Groups of operations run concurrently; double opt-in flips between groups.
        for (let i = 0; i < ops.length; i += 4) {
          const group = ops.slice(i, i + 4);
          const pending = group.some((o) => o.t === 'join' && o.pending);
          await admin.put(`/api/project/${p.projectId}/settings`, { doubleOptIn: pending });
          await Promise.all(group.map(run));
        }
        // Reference from scratch: the rows' ordinals and referredBy, the project's boost.
        const boost = ok(await admin.get(`/api/project/${p.projectId}/settings`)).referralBoost as number;
        const rows = await dbQuery<{ id: string; ordinal: number | string; status: string; referred_by: string | null }>(
          a,
          'SELECT id, ordinal, status, referred_by FROM entries WHERE project_id = ? AND deleted_at IS NULL',
          [p.projectId],
        );
        const refs = new Map<string, number>();
        for (const r of rows) if (r.referred_by && r.status !== 'pending') refs.set(r.referred_by, (refs.get(r.referred_by) ?? 0) + 1);
        const waiting = rows
          .filter((r) => r.status === 'waiting')
          .map((r) => ({ id: r.id, ord: Number(r.ordinal), k: Number(r.ordinal) - boost * (refs.get(r.id) ?? 0) }))
          .sort((x, y) => x.k - y.k || x.ord - y.ord);
        const expected = new Map(waiting.map((w, i) => [w.id, i + 1]));
        const api = await allEntries(p.projectId);
        expect(api.length).toBe(rows.length);
        for (const e of api) {
          expect(e.position, `${e.entryId} ${e.status}`).toBe(expected.get(e.entryId) ?? null);
          expect(e.referrals, e.entryId).toBe(refs.get(e.entryId) ?? 0);
        }
        // The export (the queue read once, in one pass) and a searched export (ranked per chunk) agree.
        const exported = (await admin.get(`/api/project/${p.projectId}/waitlist/export?format=ndjson`)).text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { entryId: string; position: number | null });
        expect(exported.length).toBe(rows.length);
        for (const e of exported) expect(e.position, `export ${e.entryId}`).toBe(expected.get(e.entryId) ?? null);
        const searched = JSON.parse((await admin.get(`/api/project/${p.projectId}/waitlist/export?format=json&search=prop`)).text) as {
          entryId: string;
          position: number | null;
        }[];
        expect(searched.length).toBe(rows.length);
        for (const e of searched) expect(e.position, `searched export ${e.entryId}`).toBe(expected.get(e.entryId) ?? null);
        const queue = ok(await admin.get(`/api/project/${p.projectId}/waitlist?sort=position&limit=100`));
        expect(queue.items.map((e: { entryId: string }) => e.entryId)).toEqual(waiting.slice(0, 100).map((w) => w.id));
        expect(queue.items.map((e: { position: number }) => e.position)).toEqual(waiting.slice(0, 100).map((_, i) => i + 1));
        expect(queue.total).toBe(waiting.length);
        // A later page of the queue: its rows' positions continue from the page's offset.
        const page2 = ok(await admin.get(`/api/project/${p.projectId}/waitlist?sort=position&limit=7&page=2`));
        expect(page2.items.map((e: { entryId: string; position: number }) => [e.entryId, e.position])).toEqual(
          waiting.slice(7, 14).map((w, i) => [w.id, 8 + i]),
        );
        // A page past the end: no rows, and still the waiting total.
        const past = ok(
          await admin.get(`/api/project/${p.projectId}/waitlist?sort=position&limit=7&page=${Math.ceil(waiting.length / 7) + 1}`),
        );
        expect([past.items.length, past.total]).toEqual([0, waiting.length]);
      }),
      { numRuns: 6 },
    );
  });
});
