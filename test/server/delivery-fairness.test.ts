// One project's webhook to a receiver that never answers does not hold up another project's deliveries
// (the dispatcher shares its 16 send slots by destination: src/core/dispatcher.ts). Over HTTP on the
// suite's database (SQLite, and PostgreSQL in the pg project), with a real receiver that hangs every
// request and one that answers at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { type Blackhole, startBlackhole, startHookReceiver, waitFor, type HookReceiver } from '../helpers/receivers.js';
import {
  cleanup,
  type Client,
  DIALECT,
  postJoin,
  projectWithKey,
  signedUp,
  startServer,
  uniqueEmail,
  type TestServer,
} from '../helpers/server.js';

let srv: TestServer;
let c: Client;
let hole: Blackhole;
let rx: HookReceiver;
let slow: Awaited<ReturnType<typeof projectWithKey>>;
let quick: Awaited<ReturnType<typeof projectWithKey>>;

beforeAll(async () => {
  hole = await startBlackhole();
  rx = await startHookReceiver();
  // A failed attempt is retried after 10 minutes: the ones that timed out stay out of the way.
  srv = await startServer({ args: ['--allow-private-webhooks'], env: { WAITLIST_RETRY_SCHEDULE: '600' } });
  c = await signedUp(srv.url);
  slow = await projectWithKey(c, 'Slow receiver');
  quick = await projectWithKey(c, 'Quick receiver');
  ok(await c.post(`/api/project/${slow.projectId}/webhooks`, { url: hole.url, events: ['entry.created'] }), 201);
  const h = ok(await c.post(`/api/project/${quick.projectId}/webhooks`, { url: rx.url, events: ['entry.created'] }), 201);
  rx.setSecret(h.secret);
});
afterAll(async () => {
  await srv?.stop();
  await hole?.close();
  await rx?.close();
  if (srv) cleanup(srv);
});

const join = async (p: typeof slow) => ok(await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail() }), 201);

describe(`delivery slots shared by destination on ${DIALECT}`, () => {
  it('a receiver that never answers holds at most 12 of the 16 slots; another project is delivered meanwhile', async () => {
    for (let i = 0; i < 40; i++) await join(slow);
    await waitFor(() => hole.open === 12, 15_000, 'the hanging receiver to hold 12 requests');
    for (let i = 0; i < 10; i++) await join(quick);
    await waitFor(() => rx.received.length === 10, 8_000, "the other project's 10 deliveries");
    // Delivered while every request to the hanging receiver was still open: nothing waited for its
    // 10 s timeouts, and it never held more than 12 slots.
    expect(hole.closed).toBe(0);
    expect(hole.peak).toBe(12);
    expect(rx.badSignatures).toBe(0);
  });

  it('once its sends time out, the failing receiver keeps one slot until an attempt succeeds', async () => {
    await waitFor(() => hole.closed >= 12, 20_000, 'the first attempts to time out');
    await waitFor(() => hole.open === 1, 5_000, 'the next attempt');
    hole.peak = hole.open;
    for (let i = 0; i < 5; i++) await join(quick);
    await waitFor(() => rx.received.length === 15, 8_000, "the other project's next deliveries");
    await new Promise((r) => setTimeout(r, 1_500)); // at least one more claim round (they poll every second)
    expect(hole.peak).toBe(1);
    // Its log says why: the attempts that timed out wait for their retry.
    const hooks = ok(await c.get(`/api/project/${slow.projectId}/webhooks`));
    const log = ok(await c.get(`/api/project/${slow.projectId}/webhooks/${hooks.items[0].webhookId}/deliveries?limit=100`));
    const timedOut = log.items.filter((d: { attempts: number }) => d.attempts === 1);
    expect(timedOut.length).toBeGreaterThanOrEqual(12);
    for (const d of timedOut) expect(d).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'timeout after 10 s' });
  });
});
