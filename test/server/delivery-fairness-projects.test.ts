// One project with many webhooks to a receiver that never answers (20 are allowed per project) does not
// take every send slot: a project's webhooks together get what one webhook would (12 of 16), and once
// they are failing, 4 (src/core/fair-share.ts). Over HTTP on the suite's database (SQLite, and
// PostgreSQL in the pg project), with a real receiver that hangs every request and one that answers.
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
let greedy: Awaited<ReturnType<typeof projectWithKey>>;
let quick: Awaited<ReturnType<typeof projectWithKey>>;

beforeAll(async () => {
  hole = await startBlackhole();
  rx = await startHookReceiver();
  srv = await startServer({ args: ['--allow-private-webhooks'], env: { WAITLIST_RETRY_SCHEDULE: '600' } });
  c = await signedUp(srv.url);
  greedy = await projectWithKey(c, 'Twelve hanging webhooks');
  quick = await projectWithKey(c, 'Quick receiver');
  for (let i = 0; i < 12; i++)
    ok(await c.post(`/api/project/${greedy.projectId}/webhooks`, { url: `${hole.url}?n=${i}`, events: ['entry.created'] }), 201);
  const h = ok(await c.post(`/api/project/${quick.projectId}/webhooks`, { url: rx.url, events: ['entry.created'] }), 201);
  rx.setSecret(h.secret);
});
afterAll(async () => {
  await srv?.stop();
  await hole?.close();
  await rx?.close();
  if (srv) cleanup(srv);
});

const join = async (p: typeof greedy) => ok(await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail() }), 201);

describe(`send slots shared by project on ${DIALECT}`, () => {
  it('12 webhooks of one project to a hanging receiver hold 12 slots, not 16; another project is delivered meanwhile', async () => {
    for (let i = 0; i < 5; i++) await join(greedy); // 60 deliveries
    await waitFor(() => hole.open === 12, 15_000, 'the hanging receiver to hold 12 requests');
    for (let i = 0; i < 10; i++) await join(quick);
    await waitFor(() => rx.received.length === 10, 8_000, "the other project's 10 deliveries");
    expect(hole.closed).toBe(0); // nobody waited for the 10 s timeouts
    expect(hole.peak).toBe(12);
  });

  it('once they fail, the project’s webhooks hold 4 slots together (each would hold one)', async () => {
    await waitFor(() => hole.closed >= 12, 20_000, 'the first attempts to time out'); // one to each webhook
    // Settled: 4 open for a whole second (timeouts that fire late, on a loaded machine, end first).
    let since = 0;
    await waitFor(
      () => {
        if (hole.open !== 4) since = 0;
        else if (!since) since = Date.now();
        return since && Date.now() - since >= 1_000;
      },
      25_000,
      `4 attempts open for a second (open: ${hole.open})`,
    );
    hole.peak = hole.open;
    for (let i = 0; i < 5; i++) await join(quick);
    await waitFor(() => rx.received.length === 15, 8_000, "the other project's next deliveries");
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hole.peak).toBe(4);
  });
});
