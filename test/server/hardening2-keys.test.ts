// Issue 10 #1: a flood of wrong key secrets must not make real sign-ups fail. Budgets per key and per
// client, failures counted before the bcrypt check, a refused check answered 503 with Retry-After
// (never 401: the key may be valid). Runs on SQLite and PostgreSQL (the bad-key counter lives in the
// database's limiter store).
import { beforeAll, describe, expect, it } from 'vitest';
import { postJoin, projectWithKey, signedUp, uniqueEmail, type Client, useServer } from '../helpers/server.js';

let owner: Client;

const srv = useServer({ args: ['--trust-proxy', '--join-limit', '100000'], env: { WAITLIST_RATE_LIMIT: 'on' } });
beforeAll(async () => {
  owner = await signedUp(srv.url);
});

/** A key of the same id with another secret: needs a bcrypt check while the server has not verified the key. */
const forged = (key: string, i: number) => `${key.slice(0, -8)}${String(i).padStart(8, 'z')}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

describe('bad-key flood', () => {
  it("80 concurrent wrong secrets for one key, spread over addresses, do not fail other keys' first joins", async () => {
    const attacker = await projectWithKey(owner, 'Attacked');
    const others = [];
    for (let i = 0; i < 8; i++) others.push(await projectWithKey(owner, `Victim ${i}`));
    const flood = Array.from({ length: 80 }, (_, i) =>
      postJoin(srv.url, attacker.slug, forged(attacker.key, i), { email: uniqueEmail() }, from(`203.0.113.${i + 1}`)),
    );
    const started = performance.now();
    const real = others.map((o, i) => postJoin(srv.url, o.slug, o.key, { email: uniqueEmail('real') }, from(`198.51.100.${i + 1}`)));
    const realResults = await Promise.all(real);
    const realMs = performance.now() - started;
    const floodResults = await Promise.all(flood);

    expect(realResults.map((r) => r.status)).toEqual(Array(8).fill(201));
    // Generous: the test machine is shared; the old failure mode was 401s, and the flood cannot queue
    // more than 4 checks of its key ahead of these.
    expect(realMs).toBeLessThan(20_000);
    const statuses = floodResults.map((r) => r.status);
    expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    for (const r of floodResults.filter((x) => x.status === 503)) {
      expect(r.body.error.code).toBe('service_unavailable');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Once the flood is over (its bucket refilled), the attacked key itself works: never a 401 for it.
    await new Promise((r) => setTimeout(r, 1500));
    let ok: Awaited<ReturnType<typeof postJoin>> | undefined;
    for (let i = 0; i < 10; i++) {
      ok = await postJoin(srv.url, attacker.slug, attacker.key, { email: uniqueEmail() }, from('192.0.2.200'));
      if (ok.status !== 503) break;
      await new Promise((r) => setTimeout(r, Number(ok!.headers.get('retry-after')) * 1000));
    }
    expect(ok!.status).toBe(201);
  });

  it('300 concurrent wrong secrets from one address: at most 20 reach bcrypt (counted before the check)', async () => {
    const k = await projectWithKey(owner, 'Burst');
    const burst = await Promise.all(
      Array.from({ length: 300 }, (_, i) => postJoin(srv.url, k.slug, forged(k.key, i), { email: uniqueEmail() }, from('203.0.113.250'))),
    );
    const count = (s: number) => burst.filter((r) => r.status === s).length;
    expect(count(401)).toBeLessThanOrEqual(20);
    expect(count(401) + count(429) + count(503)).toBe(300);
    // However long the address keeps trying, no more than 20 of its wrong secrets per minute are checked.
    let checked = count(401);
    for (let i = 0; i < 30; i++) {
      const r = await postJoin(srv.url, k.slug, forged(k.key, 1000 + i), { email: uniqueEmail() }, from('203.0.113.250'));
      if (r.status === 401) checked++;
      if (r.status === 429) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    expect(checked).toBeLessThanOrEqual(20);
    // The right key from the same address still works: a right secret gives its counted failure back.
    const other = await projectWithKey(owner, 'Same address');
    expect((await postJoin(srv.url, other.slug, other.key, { email: uniqueEmail() }, from('203.0.113.251'))).status).toBe(201);
  });

  it('right secrets are not counted as failures: 24 first-use keys from one address all join (more than the 20 wrong secrets allowed)', async () => {
    const keys = [];
    for (let i = 0; i < 24; i++) keys.push(await projectWithKey(owner, `Many ${i}`));
    for (const k of keys) {
      expect((await postJoin(srv.url, k.slug, k.key, { email: uniqueEmail() }, from('192.0.2.77'))).status).toBe(201);
    }
  });
});
