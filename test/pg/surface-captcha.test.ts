// Proof-of-work captcha across two `waitlist serve` processes on one PostgreSQL database: a challenge
// issued by one instance is accepted by the other (the HMAC key lives in the database), and a solution
// is used once across both, also when both race with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePaths, ok } from '../helpers/api.js';
import { createPgDatabase } from '../helpers/pg.js';
import { Client, postJoin, projectWithKey, signedUp, startServer, type TestServer, uniqueEmail } from '../helpers/server.js';
import { type Challenge, solve } from '../surface/helpers.js';

const baseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!baseUrl)('captcha on two instances sharing PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  let P: Awaited<ReturnType<typeof projectWithKey>>;

  beforeAll(async () => {
    const url = await createPgDatabase(baseUrl!);
    const reuse = { dbFile: '/nonexistent', dbEnv: { DATABASE_URL: url } };
    [a, b] = await Promise.all([startServer({ reuse }), startServer({ reuse })]);
    const owner = await signedUp(a.url);
    P = await projectWithKey(owner);
    ok(await owner.put(`/api/project/${P.projectId}/settings`, { captcha: 'pow', captchaDifficulty: 1000 }));
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  const challengeFrom = async (srv: TestServer): Promise<Challenge> =>
    ok(await new Client(srv.url).get(`/v1/waitlist/${P.slug}/challenge`, { authorization: `Bearer ${P.key}` }));

  it('a challenge from A is solved and accepted by B; the same solution then fails on A', async () => {
    const altcha = solve(await challengeFrom(a));
    ok(await postJoin(b.url, P.slug, P.key, { email: uniqueEmail('pow-b'), altcha }), 201);
    expect(issuePaths(await postJoin(a.url, P.slug, P.key, { email: uniqueEmail('pow-a'), altcha }))).toEqual(['altcha']);
  });

  it('20 concurrent joins with one solution over both instances: exactly one 201', async () => {
    const altcha = solve(await challengeFrom(b));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => postJoin(i % 2 ? a.url : b.url, P.slug, P.key, { email: uniqueEmail(`race${i}`), altcha })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(19);
  });
});
