// Which due deliveries a dispatcher claims for its free send slots. A destination is a webhook, or a
// project's email (destinationOf). One server holds many projects, of many users, and any of them may
// have a webhook whose receiver never answers (each attempt then holds a slot for the 10 s timeout)
// with a long backlog, or many such webhooks. So:
// - every destination, and every project (all its destinations together), first gets up to `soft`
//   slots, the oldest due deliveries first across all of them;
// - slots left over go to whoever has more due, oldest first, up to `hard` per destination and per
//   project (16 slots: 4 and 12);
// - a destination whose last attempt failed holds one slot until an attempt succeeds, one project's
//   failing destinations together hold at most `soft`, and all failing destinations together at most
//   half the slots: the other half always stays for receivers that answer.
// The same for both databases: the store only reads the candidates and claims the ones picked here.
import { type DueRow, destinationOf } from '../db/outbox.js';

export interface Shares {
  soft: number;
  hard: number;
  failingPerProject: number;
  failingTotal: number;
}

/** The shares of a dispatcher with `concurrency` send slots. */
export function sharesFor(concurrency: number): Shares {
  const soft = Math.max(1, Math.floor(concurrency / 4));
  return {
    soft,
    hard: Math.max(soft, concurrency - soft),
    failingPerProject: soft,
    failingTotal: Math.max(1, Math.floor(concurrency / 2)),
  };
}

/** What is in flight: sends per destination (with its project), and the destinations failing now. */
export interface InFlight {
  busy: ReadonlyMap<string, { projectId: string; n: number }>;
  failing: ReadonlySet<string>;
}

const add = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

/** Picks up to `free` of `rows` (due deliveries, any order) by the rules above. */
export function pickFair(rows: readonly DueRow[], free: number, shares: Shares, inFlight: InFlight): DueRow[] {
  const byDest = new Map<string, number>();
  const byProject = new Map<string, number>();
  const failingByProject = new Map<string, number>();
  let failingAll = 0;
  for (const [dest, { projectId, n }] of inFlight.busy) {
    add(byDest, dest, n);
    add(byProject, projectId, n);
    if (inFlight.failing.has(dest)) {
      add(failingByProject, projectId, n);
      failingAll += n;
    }
  }
  const sorted = [...rows].sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const picked: DueRow[] = [];
  const taken = new Set<string>();
  for (const cap of [shares.soft, shares.hard]) {
    for (const r of sorted) {
      if (picked.length >= free) return picked;
      if (taken.has(r.id)) continue;
      const dest = destinationOf(r);
      const failing = inFlight.failing.has(dest);
      if ((byDest.get(dest) ?? 0) >= (failing ? 1 : cap) || (byProject.get(r.projectId) ?? 0) >= cap) continue;
      if (failing && (failingAll >= shares.failingTotal || (failingByProject.get(r.projectId) ?? 0) >= shares.failingPerProject)) continue;
      add(byDest, dest);
      add(byProject, r.projectId);
      if (failing) {
        add(failingByProject, r.projectId);
        failingAll++;
      }
      taken.add(r.id);
      picked.push(r);
    }
  }
  return picked;
}
