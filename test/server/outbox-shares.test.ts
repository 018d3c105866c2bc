// A claim shares the send slots by destination (each webhook, each project's email), at the Store level
// on the suite's database (SQLite, or PostgreSQL in the pg project): every destination's soft share
// first, oldest first across destinations, then what is left up to each one's hard limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/index.js';
import { type ClaimShares, type NewDelivery, pickShared, unshared } from '../../src/db/outbox.js';
import { adapterFor } from '../store/adapters.js';
import { project, user, webhook } from '../store/conformance.js';
import { DIALECT } from '../helpers/server.js';

let store: Store;
let dispose: () => Promise<void>;
const T0 = 1_700_000_000_000;

const hookRow = (id: string, projectId: string, webhookId: string, at: number): NewDelivery => ({
  id,
  projectId,
  kind: 'webhook',
  webhookId,
  eventId: null,
  type: 'entry.created',
  recipient: null,
  data: null,
  nextAttemptAt: at,
  createdAt: at,
});
const mailRow = (id: string, projectId: string, at: number): NewDelivery => ({
  ...hookRow(id, projectId, '', at),
  kind: 'email',
  webhookId: null,
  type: 'welcome',
  recipient: `${id}@example.com`,
  data: '{}',
});

beforeAll(async () => {
  ({ store, dispose } = await adapterFor(DIALECT).open());
  const u = user({ id: 'usr_sh' });
  await store.insertUser(u);
  await store.insertProject(project(u.id, { id: 'prj_sh1', name: 'S1', slug: 'shares-one' }));
  await store.insertProject(project(u.id, { id: 'prj_sh2', name: 'S2', slug: 'shares-two' }));
  await store.events.insertWebhook(webhook('prj_sh1', 'wh_sh_a', ['entry.created']));
  await store.events.insertWebhook(webhook('prj_sh2', 'wh_sh_b', ['entry.created']));
  await store.events.append(
    {},
    [
      // Webhook a has the ten oldest, b three after them, then two emails of each project.
      ...Array.from({ length: 10 }, (_, i) => hookRow(`dlv_a${i}`, 'prj_sh1', 'wh_sh_a', T0 + i)),
      ...Array.from({ length: 3 }, (_, i) => hookRow(`dlv_b${i}`, 'prj_sh2', 'wh_sh_b', T0 + 100 + i)),
      mailRow('dlv_m10', 'prj_sh1', T0 + 200),
      mailRow('dlv_m11', 'prj_sh1', T0 + 201),
      mailRow('dlv_m20', 'prj_sh2', T0 + 300),
      mailRow('dlv_m21', 'prj_sh2', T0 + 301),
      // Not due yet: never claimed.
      hookRow('dlv_later', 'prj_sh2', 'wh_sh_b', T0 + 10_000),
    ],
    true,
  );
});
afterAll(async () => dispose?.());

describe(`claims shared by destination on ${DIALECT}`, () => {
  it('takes every destination’s soft share first, then the oldest of the rest, within each hard limit', async () => {
    const shares: ClaimShares = {
      // Webhook a has sends in flight: nothing within a share is left to it, and one more at most.
      rooms: new Map([['wh:wh_sh_a', { soft: 0, hard: 1 }]]),
      fresh: { soft: 2, hard: 6 },
    };
    const claimed = await store.events.claimDue(T0 + 1_000, 8, 60_000, shares);
    expect(claimed.map((d) => d.id).sort()).toEqual(
      // Shares: b0 b1, m10 m11, m20 m21; then the oldest left: a0 (a's one), b2.
      ['dlv_a0', 'dlv_b0', 'dlv_b1', 'dlv_b2', 'dlv_m10', 'dlv_m11', 'dlv_m20', 'dlv_m21'],
    );
    for (const d of claimed) expect(d.lease).toBe(T0 + 1_000 + 60_000);
  });

  it('a destination with no room gives nothing, however old its deliveries', async () => {
    const shares: ClaimShares = { rooms: new Map([['wh:wh_sh_a', { soft: 0, hard: 0 }]]), fresh: { soft: 4, hard: 12 } };
    expect(await store.events.claimDue(T0 + 1_000, 16, 60_000, shares)).toEqual([]); // all but a's are claimed
    const rest = await store.events.claimDue(T0 + 1_000, 3, 60_000, unshared(3));
    expect(rest.map((d) => d.id)).toEqual(['dlv_a1', 'dlv_a2', 'dlv_a3']); // unshared: the oldest due first
  });

  it('pickShared orders shares before the rest, then by due time and id', () => {
    const row = (id: string, at: number) => ({ id, nextAttemptAt: at });
    const picked = pickShared(
      [
        [row('x1', 1), row('x2', 2), row('x3', 3)],
        [row('y1', 5), row('y2', 6)],
      ],
      [1, 2],
      4,
    );
    expect(picked.map((r) => r.id)).toEqual(['x1', 'y1', 'y2', 'x2']);
  });
});
