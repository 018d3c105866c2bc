// One project with many webhooks to a receiver that never answers (20 are allowed per project) does not
// take every send slot: a project's webhooks together get what one webhook would (12 of 16), and once
// they are failing, 4 (src/core/fair-share.ts). Over HTTP on the suite's database (SQLite, and
// PostgreSQL in the pg project), with a real receiver that hangs every request and one that answers.
import { describe, expect, it } from 'vitest';
import { useFairness } from '../helpers/fairness.js';
import { waitFor } from '../helpers/receivers.js';
import { DIALECT } from '../helpers/server.js';

const f = useFairness(12);

describe(`send slots shared by project on ${DIALECT}`, () => {
  it('12 webhooks of one project to a hanging receiver hold 12 slots, not 16; another project is delivered meanwhile', async () => {
    for (let i = 0; i < 5; i++) await f.join(f.slow); // 60 deliveries
    await waitFor(() => f.hole.open === 12, 15_000, 'the hanging receiver to hold 12 requests');
    for (let i = 0; i < 10; i++) await f.join(f.quick);
    await waitFor(() => f.rx.received.length === 10, 8_000, "the other project's 10 deliveries");
    expect(f.hole.closed).toBe(0); // nobody waited for the 10 s timeouts
    expect(f.hole.peak).toBe(12);
  });

  it('once they fail, the project’s webhooks hold 4 slots together (each would hold one)', async () => {
    await waitFor(() => f.hole.closed >= 12, 20_000, 'the first attempts to time out'); // one to each webhook
    // Settled: 4 open for a whole second (timeouts that fire late, on a loaded machine, end first).
    let since = 0;
    await waitFor(
      () => {
        if (f.hole.open !== 4) since = 0;
        else if (!since) since = Date.now();
        return since && Date.now() - since >= 1_000;
      },
      25_000,
      `4 attempts open for a second (open: ${f.hole.open})`,
    );
    f.hole.peak = f.hole.open;
    for (let i = 0; i < 5; i++) await f.join(f.quick);
    await waitFor(() => f.rx.received.length === 15, 8_000, "the other project's next deliveries");
    await new Promise((r) => setTimeout(r, 1_500));
    expect(f.hole.peak).toBe(4);
  });
});
