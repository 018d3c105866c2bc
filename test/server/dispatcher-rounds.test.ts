// How often the outbox dispatcher (src/core/dispatcher.ts) runs a round under a stream of commits, on
// the suite's database: every join batch that writes an event wakes it (one every 8 ms here). On PostgreSQL a wake runs a
// round no sooner than 25 ms after the last one started, so a stream of commits costs the database at
// most about 40 rounds (each a fan-out and a claim query) a second; a wake after a quiet spell runs at
// once. On SQLite a wake runs a round at once (measured faster there: docs/performance.md, round
// twenty-eight).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/core/dispatcher.js';
import type { Store } from '../../src/db/index.js';
import { newEvent, outboxId } from '../../src/core/outbox.js';
import { adapterFor } from '../store/adapters.js';
import { project, user, webhook } from '../store/conformance.js';
import { DIALECT } from '../helpers/server.js';

let store: Store;
let dispose: () => Promise<void>;

beforeAll(async () => {
  ({ store, dispose } = await adapterFor(DIALECT).open());
  // One webhook with a delivery due in an hour: a destination the claims' walk goes round, with nothing
  // to send (as a receiver whose slots are all taken, under load).
  const u = user({ id: 'usr_rounds' });
  await store.insertUser(u);
  await store.insertProject(project(u.id, { id: 'prj_rounds', slug: 'rounds' }));
  await store.events.insertWebhook(webhook('prj_rounds', 'wh_rounds', ['entry.created']));
  const e = newEvent('entry.created', 'prj_rounds', { n: 1 });
  const later = Date.now() + 3_600_000;
  await store.events.append(
    { events: [e] },
    [
      {
        id: outboxId('dlv'),
        projectId: 'prj_rounds',
        kind: 'webhook',
        webhookId: 'wh_rounds',
        eventId: e.id,
        type: e.type,
        recipient: null,
        data: null,
        nextAttemptAt: later,
        createdAt: e.createdAt,
      },
    ],
    true,
  );
});
afterAll(async () => dispose?.());

describe(`the dispatcher's rounds on ${DIALECT}`, () => {
  it('runs a round on a wake after a quiet spell, and under a stream of wakes no more often than its dialect allows', async () => {
    let rounds = 0;
    const starts: number[] = [];
    // The real store, seen through a proxy that notes each round's first call (its fan-out).
    const events = store.events;
    const counted = new Proxy(events, {
      get(t, k) {
        if (k === 'fanOut')
          return (...args: Parameters<typeof events.fanOut>) => {
            rounds++;
            starts.push(performance.now());
            return t.fanOut(...args);
          };
        const v = Reflect.get(t, k, t);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    const viewed = new Proxy(store, {
      get(t, k) {
        if (k === 'events') return counted;
        const v = Reflect.get(t, k, t);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    const d = new Dispatcher(viewed, { mailer: null, allowPrivateWebhooks: false, publicUrl: '', pollMs: 60_000, firstPruneMs: 60_000 });
    d.start();
    try {
      await new Promise((r) => setTimeout(r, 100)); // start-up's own round
      const before = rounds;
      d.wake();
      while (rounds === before) await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 50));
      // A commit every 8 ms for 500 ms, as join batches under load (a round takes less than that).
      const from = rounds;
      const t0 = performance.now();
      const timer = setInterval(() => d.wake(), 8);
      await new Promise((r) => setTimeout(r, 500));
      clearInterval(timer);
      const elapsed = performance.now() - t0;
      const n = rounds - from;
      if (DIALECT === 'pg') {
        expect(n).toBeLessThanOrEqual(Math.ceil(elapsed / 25) + 1);
        const gaps = starts.slice(from + 1).map((t, i) => t - starts[from + i]!);
        expect(Math.min(...gaps)).toBeGreaterThanOrEqual(20); // timers may fire a little early
      } else {
        expect(n).toBeGreaterThan(Math.ceil(elapsed / 25) + 1); // SQLite: a round as soon as the last one is done
      }
    } finally {
      await d.stop();
    }
  });
});
