// The two steps of a claim at the Store level, on the suite's database (SQLite, or PostgreSQL in the
// pg project): dueCandidates walks the destinations with pending deliveries (each webhook, each
// project's email) from a cursor, a bounded number at a time, wrapping around, with each one's oldest
// due rows; claimPicked leases the rows picked, those still pending and due.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/index.js';
import { DUE_START, type DueCursor, type NewDelivery } from '../../src/db/outbox.js';
import { adapterFor } from '../store/adapters.js';
import { project, user, webhook } from '../store/conformance.js';
import { DIALECT } from '../helpers/server.js';

let store: Store;
let dispose: () => Promise<void>;
const T0 = 1_700_000_000_000;
const NOW = T0 + 1_000;

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
  for (const h of ['wh_sh_a', 'wh_sh_b', 'wh_sh_c']) await store.events.insertWebhook(webhook('prj_sh1', h, ['entry.created']));
  await store.events.append(
    {},
    [
      // Webhook a: five due; b: two due and one not yet; c: one not due yet. Two projects' emails.
      ...Array.from({ length: 5 }, (_, i) => hookRow(`dlv_a${i}`, 'prj_sh1', 'wh_sh_a', T0 + i)),
      hookRow('dlv_b0', 'prj_sh1', 'wh_sh_b', T0 + 100),
      hookRow('dlv_b1', 'prj_sh1', 'wh_sh_b', T0 + 101),
      hookRow('dlv_b2', 'prj_sh1', 'wh_sh_b', T0 + 10_000),
      hookRow('dlv_c0', 'prj_sh1', 'wh_sh_c', T0 + 10_000),
      mailRow('dlv_m10', 'prj_sh1', T0 + 200),
      mailRow('dlv_m20', 'prj_sh2', T0 + 300),
      mailRow('dlv_m21', 'prj_sh2', T0 + 301),
    ],
    true,
  );
});
afterAll(async () => dispose?.());

const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

describe(`claims in two steps on ${DIALECT}`, () => {
  it('reads every destination’s oldest due rows, up to perDestination each, and claims nothing', async () => {
    const { rows, cursor } = await store.events.dueCandidates(NOW, DUE_START, 64, 2);
    expect(ids(rows)).toEqual(['dlv_a0', 'dlv_a1', 'dlv_b0', 'dlv_b1', 'dlv_m10', 'dlv_m20', 'dlv_m21']);
    expect(rows.find((r) => r.id === 'dlv_m20')).toEqual({ id: 'dlv_m20', projectId: 'prj_sh2', webhookId: null, nextAttemptAt: T0 + 300 });
    expect(cursor).toEqual(DUE_START); // every destination was looked at
    expect((await store.events.dueCandidates(NOW, DUE_START, 64, 2)).wrapped).toEqual({ hook: true, mail: true });
    expect(ids((await store.events.dueCandidates(NOW, DUE_START, 64, 2)).rows)).toHaveLength(7); // still there
  });

  it('looks at a bounded number of destinations per call, going on from the cursor and wrapping around', async () => {
    const seen: string[][] = [];
    const wrapped: { hook: boolean; mail: boolean }[] = [];
    let cursor: DueCursor = DUE_START;
    for (let i = 0; i < 4; i++) {
      const r = await store.events.dueCandidates(NOW, cursor, 1, 1);
      seen.push(ids(r.rows));
      wrapped.push(r.wrapped);
      cursor = r.cursor;
    }
    // Webhooks a, b, c (c has nothing due), then from the start again; emails of prj_sh1, prj_sh2, then again.
    expect(seen).toEqual([
      ['dlv_a0', 'dlv_m10'],
      ['dlv_b0', 'dlv_m20'],
      ['dlv_m10'], // c: nothing due; the emails wrapped to prj_sh1
      ['dlv_a0', 'dlv_m20'],
    ]);
    // The emails came round in the third call, the webhooks in the fourth.
    expect(wrapped).toEqual([
      { hook: false, mail: false },
      { hook: false, mail: false },
      { hook: false, mail: true },
      { hook: true, mail: false },
    ]);
    // A cursor past every destination wraps at once.
    const last = await store.events.dueCandidates(NOW, { hook: 'wh_sh_z', mail: 'prj_sh9' }, 2, 1);
    expect(ids(last.rows)).toEqual(['dlv_a0', 'dlv_b0', 'dlv_m10', 'dlv_m20']);
  });

  it('reads the hot destinations too, wherever the walk is, each row once', async () => {
    // The walk looks at webhook a and prj_sh1's email only; b and prj_sh2's email are hot.
    const hot = [
      { webhookId: 'wh_sh_b', projectId: 'prj_sh1' },
      { webhookId: null, projectId: 'prj_sh2' },
      { webhookId: 'wh_sh_a', projectId: 'prj_sh1' }, // also walked: not twice
    ];
    const { rows } = await store.events.dueCandidates(NOW, DUE_START, 1, 2, hot);
    expect(ids(rows)).toEqual(['dlv_a0', 'dlv_a1', 'dlv_b0', 'dlv_b1', 'dlv_m10', 'dlv_m20', 'dlv_m21']);
  });

  it('claims the rows picked that are still pending and due, once', async () => {
    const claimed = await store.events.claimPicked(['dlv_a0', 'dlv_m20', 'dlv_b2'], NOW, 60_000);
    expect(ids(claimed)).toEqual(['dlv_a0', 'dlv_m20']); // b2 is not due yet
    for (const d of claimed) expect(d.lease).toBe(NOW + 60_000);
    expect(await store.events.claimPicked(['dlv_a0'], NOW, 60_000)).toEqual([]); // leased: not due any more
    const { rows } = await store.events.dueCandidates(NOW, DUE_START, 64, 10);
    expect(ids(rows)).not.toContain('dlv_a0');
    expect(ids(rows)).not.toContain('dlv_m20');
  });

  it('claimDue takes the oldest due first, whatever the destination', async () => {
    const claimed = await store.events.claimDue(NOW, 3, 60_000);
    expect(ids(claimed)).toEqual(['dlv_a1', 'dlv_a2', 'dlv_a3']);
  });
});
