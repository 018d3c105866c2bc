// The rules by which a dispatcher's 16 send slots are shared (src/core/fair-share.ts): by destination
// (each webhook, each project's email), by project, and with half the slots kept from failing ones.
import { describe, expect, it } from 'vitest';
import { type InFlight, pickFair, sharesFor } from '../../src/core/fair-share.js';
import type { DueRow } from '../../src/db/outbox.js';

const shares = sharesFor(16);
const rowsOf = (projectId: string, webhookId: string | null, n: number, from = 0): DueRow[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${webhookId ?? `em-${projectId}`}-${String(i).padStart(4, '0')}`,
    projectId,
    webhookId,
    nextAttemptAt: from + i,
  }));
const none: InFlight = { busy: new Map(), failing: new Set() };
const count = (rows: DueRow[], key: (r: DueRow) => string) =>
  rows.reduce((m, r) => m.set(key(r), (m.get(key(r)) ?? 0) + 1), new Map<string, number>());

describe('sharesFor', () => {
  it('gives a quarter first, at most all but a quarter, and keeps half from failing destinations', () => {
    expect(sharesFor(16)).toEqual({ soft: 4, hard: 12, failingPerProject: 4, failingTotal: 8 });
    expect(sharesFor(1)).toEqual({ soft: 1, hard: 1, failingPerProject: 1, failingTotal: 1 });
  });
});

describe('pickFair', () => {
  it('alone, a destination gets up to 12 slots, oldest first', () => {
    const picked = pickFair(rowsOf('p1', 'wh_a', 30), 16, shares, none);
    expect(picked.map((r) => r.id)).toEqual(rowsOf('p1', 'wh_a', 12).map((r) => r.id));
  });

  it('every destination gets its share first, even when another one’s deliveries are older', () => {
    const picked = pickFair(
      [...rowsOf('p1', 'wh_a', 30), ...rowsOf('p2', 'wh_b', 30, 1000), ...rowsOf('p3', null, 2, 2000)],
      16,
      shares,
      none,
    );
    expect(Object.fromEntries(count(picked, (r) => r.projectId))).toEqual({ p1: 10, p2: 4, p3: 2 });
  });

  it('a project’s many webhooks together get no more than one destination would', () => {
    const hooks = Array.from({ length: 16 }, (_, i) => rowsOf('p1', `wh_${i}`, 5)).flat();
    const picked = pickFair([...hooks, ...rowsOf('p2', 'wh_q', 10, 5000)], 16, shares, none);
    expect(Object.fromEntries(count(picked, (r) => r.projectId))).toEqual({ p1: 12, p2: 4 });
  });

  it('failing destinations get one slot each, four per project, half the slots in all', () => {
    // Four projects with 16 webhooks each, all failing, and one that answers with a backlog.
    const bad = ['b1', 'b2', 'b3', 'b4'].flatMap((p) => Array.from({ length: 16 }, (_, i) => rowsOf(p, `wh_${p}_${i}`, 3)).flat());
    const failing = new Set(bad.map((r) => `wh:${r.webhookId}`));
    const picked = pickFair([...bad, ...rowsOf('good', 'wh_good', 40, 10_000)], 16, shares, { busy: new Map(), failing });
    const byProject = count(picked, (r) => r.projectId);
    expect(byProject.get('good')).toBe(8);
    expect([...byProject.values()].reduce((a, b) => a + b)).toBe(16);
    for (const p of ['b1', 'b2', 'b3', 'b4']) expect(byProject.get(p) ?? 0).toBeLessThanOrEqual(4);
    for (const n of count(picked, (r) => r.webhookId ?? '').values()) expect(n).toBeLessThanOrEqual(8); // good: 8, failing ones: 1
  });

  it('counts what is in flight against every limit', () => {
    const inFlight: InFlight = {
      busy: new Map([
        ['wh:wh_a', { projectId: 'p1', n: 11 }],
        ['wh:wh_dead', { projectId: 'p2', n: 1 }],
      ]),
      failing: new Set(['wh:wh_dead']),
    };
    const picked = pickFair(
      [...rowsOf('p1', 'wh_a', 10), ...rowsOf('p2', 'wh_dead', 10), ...rowsOf('p1', 'wh_b', 10, 500)],
      4,
      shares,
      inFlight,
    );
    // wh_a may take one more (11 of 12); the dead one none (it holds its one); p1 as a project is then full (12).
    expect(picked.map((r) => r.webhookId)).toEqual(['wh_a']);
  });
});
