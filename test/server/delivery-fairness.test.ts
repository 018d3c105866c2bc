// One project's webhook to a receiver that never answers does not hold up another project's deliveries
// (the dispatcher shares its 16 send slots by destination: src/core/dispatcher.ts). Over HTTP on the
// suite's database (SQLite, and PostgreSQL in the pg project), with a real receiver that hangs every
// request and one that answers at once.
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { useFairness } from '../helpers/fairness.js';
import { waitFor } from '../helpers/receivers.js';
import { DIALECT } from '../helpers/server.js';

const f = useFairness(1);

describe(`delivery slots shared by destination on ${DIALECT}`, () => {
  it('a receiver that never answers holds at most 12 of the 16 slots; another project is delivered meanwhile', async () => {
    for (let i = 0; i < 40; i++) await f.join(f.slow);
    await waitFor(() => f.hole.open === 12, 15_000, 'the hanging receiver to hold 12 requests');
    for (let i = 0; i < 10; i++) await f.join(f.quick);
    await waitFor(() => f.rx.received.length === 10, 8_000, "the other project's 10 deliveries");
    // Delivered while every request to the hanging receiver was still open: nothing waited for its
    // 10 s timeouts, and it never held more than 12 slots.
    expect(f.hole.closed).toBe(0);
    expect(f.hole.peak).toBe(12);
    expect(f.rx.badSignatures).toBe(0);
  });

  it('once its sends time out, the failing receiver keeps one slot until an attempt succeeds', async () => {
    await waitFor(() => f.hole.closed >= 12, 20_000, 'the first attempts to time out');
    await waitFor(() => f.hole.open === 1, 5_000, 'the next attempt');
    f.hole.peak = f.hole.open;
    for (let i = 0; i < 5; i++) await f.join(f.quick);
    await waitFor(() => f.rx.received.length === 15, 8_000, "the other project's next deliveries");
    await new Promise((r) => setTimeout(r, 1_500)); // at least one more claim round (they poll every second)
    expect(f.hole.peak).toBe(1);
    // Its log says why: the attempts that timed out wait for their retry.
    const hooks = ok(await f.owner.get(`/api/project/${f.slow.projectId}/webhooks`));
    const log = ok(await f.owner.get(`/api/project/${f.slow.projectId}/webhooks/${hooks.items[0].webhookId}/deliveries?limit=100`));
    const timedOut = log.items.filter((d: { attempts: number }) => d.attempts === 1);
    expect(timedOut.length).toBeGreaterThanOrEqual(12);
    for (const d of timedOut) expect(d).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'timeout after 10 s' });
  });
});
