// Two `waitlist serve` processes on one PostgreSQL database share the outbox: joins spread over both
// are each delivered to the webhook exactly once in normal operation (claims with FOR UPDATE SKIP
// LOCKED), verified by a receiver that checks every signature with `standardwebhooks`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { createPgDatabase } from '../helpers/pg.js';
import { startHookReceiver, waitFor, type HookReceiver } from '../helpers/receivers.js';
import { postJoin, projectWithKey, signedUp, startServer, uniqueEmail, type TestServer } from '../helpers/server.js';

const baseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!baseUrl)('the outbox shared by two instances on PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  let rx: HookReceiver;

  beforeAll(async () => {
    rx = await startHookReceiver();
    const reuse = { dbFile: '/nonexistent', dbEnv: { DATABASE_URL: await createPgDatabase(baseUrl!) } };
    const args = ['--open-signup', '--allow-private-webhooks'];
    [a, b] = await Promise.all([startServer({ reuse, args }), startServer({ reuse, args })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await rx?.close();
  });

  it('delivers each of 300 events exactly once', async () => {
    const owner = await signedUp(a.url, uniqueEmail('multi'));
    const p = await projectWithKey(owner);
    const h = ok(await owner.post(`/api/project/${p.projectId}/webhooks`, { url: rx.url }), 201);
    rx.setSecret(h.secret);
    rx.delayMs = 5; // a little work per message, so both instances' dispatchers overlap
    const ids: string[] = [];
    for (let round = 0; round < 10; round++) {
      const res = await Promise.all(
        Array.from({ length: 30 }, (_, i) => postJoin(i % 2 ? a.url : b.url, p.slug, p.key, { email: uniqueEmail('m') })),
      );
      ids.push(...res.map((r) => ok(r, 201).entryId as string));
    }
    await waitFor(() => new Set(rx.received.map((m) => m.id)).size >= 300, 60_000, '300 events');
    await new Promise((r) => setTimeout(r, 1500)); // time for any duplicate to show up
    const perId = [...rx.attempts.values()];
    expect(perId).toHaveLength(300);
    expect(perId.filter((n) => n > 1)).toEqual([]);
    expect(rx.received).toHaveLength(300);
    expect(new Set(rx.received.map((m) => m.body.data.entryId))).toEqual(new Set(ids));
    expect(rx.badSignatures).toBe(0);
  });
});
