// PostgreSQL search reads `entry_search` (migrations/pg/0008_search_table.sql), a narrow copy of each
// entry's email, name and live flag kept by triggers. The copy must follow every change search can see
// (a join, a rename, a soft delete, an erasure), and must NOT be written by the updates that leave email
// and name alone (a referral credit, an invite, a redeem): that is what keeps the trigram indexes off
// those updates. A row version that did not change keeps its xmin (the writing transaction's id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { bearer, createKey, dbQuery } from '../helpers/lifecycle.js';
import { createPgDatabase } from '../helpers/pg.js';
import { Client, postJoin, projectWithKey, signedUp, startServer, type TestServer, uniqueEmail } from '../helpers/server.js';

const baseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!baseUrl)('entry_search on PostgreSQL', () => {
  let server: TestServer;
  let admin: Client;

  beforeAll(async () => {
    const url = await createPgDatabase(baseUrl!);
    server = await startServer({ reuse: { dbFile: '/nonexistent', dbEnv: { DATABASE_URL: url } } });
    admin = await signedUp(server.url);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const copyOf = async (entryId: string) =>
    (
      await dbQuery<{ email_norm: string; name: string | null; live: boolean; xmin: string }>(
        server,
        'SELECT email_norm, name, live, xmin::text AS xmin FROM entry_search WHERE entry_id = ?',
        [entryId],
      )
    )[0];
  const xminOfEntry = async (entryId: string) =>
    (await dbQuery<{ xmin: string }>(server, 'SELECT xmin::text AS xmin FROM entries WHERE id = ?', [entryId]))[0]!.xmin;

  it('follows joins, renames, soft deletes and erasures; searches see exactly that', async () => {
    const p = await projectWithKey(admin);
    const email = uniqueEmail('Search.Copy');
    const me = ok(await postJoin(server.url, p.slug, p.key, { email, name: 'Zelda Quartz' }), 201);
    expect(await copyOf(me.entryId)).toMatchObject({ email_norm: email.toLowerCase(), name: 'Zelda Quartz', live: true });
    const search = async (q: string) => ok(await admin.get(`/api/project/${p.projectId}/waitlist?search=${encodeURIComponent(q)}`));
    expect((await search('quartz')).items.map((e: { entryId: string }) => e.entryId)).toEqual([me.entryId]);

    ok(await admin.put(`/api/project/${p.projectId}/waitlist/${me.entryId}`, { name: 'Zelda Onyx' }));
    expect((await copyOf(me.entryId))?.name).toBe('Zelda Onyx');
    expect((await search('quartz')).total).toBe(0);
    expect((await search('onyx')).total).toBe(1);
    // The queue view's search reads the same copy.
    expect(ok(await admin.get(`/api/project/${p.projectId}/waitlist?status=waiting&search=onyx`)).total).toBe(1);

    ok(await admin.del(`/api/project/${p.projectId}/waitlist/${me.entryId}`));
    expect((await copyOf(me.entryId))?.live).toBe(false);
    expect((await search('onyx')).total).toBe(0);

    // Erasure (the subscriber's leave) takes the copy with it: neither the id nor the address remains.
    const leaver = uniqueEmail('leaver');
    const l = ok(await postJoin(server.url, p.slug, p.key, { email: leaver, name: 'Leaving Soon' }), 201);
    ok(await new Client(server.url).post(`/v1/waitlist/${p.slug}/leave`, { token: l.statusToken }));
    expect(
      await dbQuery(server, 'SELECT entry_id FROM entry_search WHERE entry_id = ? OR email_norm = ?', [l.entryId, leaver.toLowerCase()]),
    ).toEqual([]);
  });

  it('is not written by a referral credit, an invite or a redeem, which do write the entry', async () => {
    const p = await projectWithKey(admin);
    const secret = await createKey(admin, p.projectId, 'secret');
    const referrer = ok(await postJoin(server.url, p.slug, p.key, { email: uniqueEmail('referrer'), name: 'Ref Errer' }), 201);
    const before = await copyOf(referrer.entryId);
    let entryXmin = await xminOfEntry(referrer.entryId);

    ok(await postJoin(server.url, p.slug, p.key, { email: uniqueEmail('friend'), ref: referrer.referralCode }), 201);
    const credited = ok(await admin.get(`/api/project/${p.projectId}/waitlist/${referrer.entryId}`));
    expect(credited.referrals).toBe(1);
    expect(await xminOfEntry(referrer.entryId)).not.toBe(entryXmin); // the entry was written…
    expect(await copyOf(referrer.entryId)).toEqual(before); // …its search copy was not
    entryXmin = await xminOfEntry(referrer.entryId);

    const inv = ok(await admin.post(`/api/project/${p.projectId}/invites`, { entryIds: [referrer.entryId] }));
    expect(await xminOfEntry(referrer.entryId)).not.toBe(entryXmin);
    expect(await copyOf(referrer.entryId)).toEqual(before);
    entryXmin = await xminOfEntry(referrer.entryId);

    ok(await new Client(server.url).post(`/v1/waitlist/${p.slug}/invites/redeem`, { code: inv.invited[0].inviteCode }, bearer(secret.key)));
    expect(await xminOfEntry(referrer.entryId)).not.toBe(entryXmin);
    expect(await copyOf(referrer.entryId)).toEqual(before);
  });
});
