// The outbox at the Store level, on the suite's database (SQLite, or PostgreSQL in the pg project):
// a join writes entry.created in its group commit (not for a duplicate), a delete writes entry.deleted,
// fan-out turns events into deliveries, claims are leases fenced by their value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteEntry, joinWaitlist } from '../../src/core/entries.js';
import { inviteEntries } from '../../src/core/invites.js';
import { positionOf } from '../../src/core/lifecycle.js';
import { fanOutPlan } from '../../src/core/fanout.js';
import { newEmail, outboxId } from '../../src/core/outbox.js';
import type { Store } from '../../src/db/index.js';
import { adapterFor } from '../store/adapters.js';
import { DELIVERED, key, project, user, webhook } from '../store/conformance.js';
import type { EventRow } from '../../src/db/outbox.js';
import { DIALECT } from '../helpers/server.js';

let store: Store;
let dispose: () => Promise<void>;
const projectId = 'prj_outbox1';

beforeAll(async () => {
  ({ store, dispose } = await adapterFor(DIALECT).open());
  const u = user({ id: 'usr_o1' });
  await store.insertUser(u);
  await store.insertProject(project(u.id, { id: projectId, name: 'O', slug: 'outbox-one' }));
  await store.insertKey(key(projectId, { id: 'key_o1', lookup: 'lk_o1' }));
  await store.events.insertWebhook(webhook(projectId, 'wh_o1', ['entry.created', 'entry.deleted']));
});
afterAll(async () => dispose?.());

const ctx = { projectId, keyId: 'key_o1', ip: null, country: null, userAgent: null };
const plan = fanOutPlan(false);

/**
 * The events `fn` wrote, oldest first, however they were fanned out: the events the dispatcher's
 * fan-out finds (it then runs the real plan on them), and the events the store fanned out in the
 * writing transaction (an event only webhooks read), found by their new deliveries to `hookIds`.
 */
async function eventsWritten(fn: () => Promise<unknown>, hookIds: string[]) {
  const page = { offset: 0, limit: 1000 };
  const before = new Set<string>();
  for (const h of hookIds) for (const d of (await store.events.listDeliveries(h, page)).rows) before.add(d.id);
  await fn();
  const seen = new Map<string, { type: string; payload: string }>();
  await store.events.fanOut(1000, (ev, hooks, p) => (seen.set(ev.id, ev), plan(ev, hooks, p)));
  const fannedBefore = new Map<string, { type: string; payload: string }>();
  for (const h of hookIds) {
    for (const d of (await store.events.listDeliveries(h, page)).rows) {
      if (before.has(d.id) || seen.has(d.eventId!) || fannedBefore.has(d.eventId!)) continue;
      const claimed = await store.events.claimOne(h, d.id, Date.now(), 60_000); // for its payload
      fannedBefore.set(d.eventId!, { type: d.type, payload: claimed!.payload! });
    }
  }
  return [...seen, ...fannedBefore].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e);
}

describe(`outbox on ${DIALECT}`, () => {
  it('writes entry.created with each join of a group commit, none for a duplicate, and wakes listeners', async () => {
    let wakes = 0;
    store.onOutboxWrite(() => wakes++);
    const before = await store.events.backlog();
    const joins = await Promise.allSettled(['a@x.io', 'b@x.io', 'A@x.io', 'c@x.io'].map((email) => joinWaitlist(store, ctx, { email })));
    expect(joins.filter((j) => j.status === 'fulfilled')).toHaveLength(3);
    expect(await store.events.backlog()).toBe(before + 3);
    expect(wakes).toBeGreaterThan(0);

    const seen: EventRow[] = [];
    const fanned = await store.events.fanOut(100, (e, hooks) => {
      seen.push(e);
      return hooks.map((h) => ({
        id: outboxId('dlv'),
        projectId: e.projectId,
        kind: 'webhook' as const,
        webhookId: h.id,
        eventId: e.id,
        type: e.type,
        recipient: null,
        data: null,
        nextAttemptAt: e.createdAt,
        createdAt: e.createdAt,
      }));
    });
    expect(fanned).toBe(3);
    const payload = JSON.parse(seen[0]!.payload);
    expect(payload).toMatchObject({ type: 'entry.created', projectId, data: { email: 'a@x.io' } });
    expect(payload.data.entryId).toMatch(/^ent_/);
    expect(Date.parse(payload.timestamp)).toBeGreaterThan(0);
    expect(await store.events.fanOut(100, () => [])).toBe(0); // nothing fanned out twice
  });

  it('claims due deliveries as leases; a stale lease cannot finish; an expired lease is claimed again', async () => {
    const now = Date.now();
    const first = await store.events.claimDue(now, 2, 60_000);
    expect(first).toHaveLength(2);
    expect(first[0]!.payload).toContain('entry.created');
    expect(first[0]!.webhook?.url).toBe('http://example.com/h');
    const rest = await store.events.claimDue(now, 10, 60_000);
    expect(rest).toHaveLength(1); // the first two are leased
    const outcome = DELIVERED;
    for (const d of first) expect(await store.events.finish(d.id, d.lease, outcome, now)).toBe(true);
    // the lease of rest[0] ran out (its instance died): another claim takes it; the old lease is fenced off
    const again = await store.events.claimDue(now + 61_000, 10, 60_000);
    expect(again.map((d) => d.id)).toEqual([rest[0]!.id]);
    expect(await store.events.finish(rest[0]!.id, rest[0]!.lease, outcome, now)).toBe(false);
    expect(await store.events.finish(again[0]!.id, again[0]!.lease, outcome, now)).toBe(true);
    const log = await store.events.listDeliveries('wh_o1', { offset: 0, limit: 10 });
    expect(log.total).toBe(3);
    expect(log.rows.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
  });

  it("writes an entry's event only while an enabled webhook of its project subscribes to its type, or it may become a notice", async () => {
    const quiet = project('usr_o1', { id: 'prj_outbox2', slug: 'outbox-two' });
    await store.insertProject(quiet);
    const qctx = { ...ctx, projectId: quiet.id, project: quiet };
    await store.events.fanOut(100, () => []);
    const written = async (fn: () => Promise<unknown>) => {
      let wakes = 0;
      store.onOutboxWrite(() => wakes++);
      const types = (await eventsWritten(fn, ['wh_o1', 'wh_o2'])).map((e) => e.type);
      return { types, wakes };
    };
    // No webhook: nothing is written, and the dispatcher is not woken.
    const a = await written(() => joinWaitlist(store, qctx, { email: 'q1@x.io' }));
    expect(a).toEqual({ types: [], wakes: 0 });
    // A webhook for entry.deleted only: joins still write nothing; a delete writes its event.
    const hook = webhook(quiet.id, 'wh_o2', ['entry.deleted']);
    await store.events.insertWebhook(hook);
    let e!: { id: string };
    expect((await written(async () => (e = await joinWaitlist(store, qctx, { email: 'q2@x.io' })))).types).toEqual([]);
    expect((await written(() => deleteEntry(store, quiet.id, e.id))).types).toEqual(['entry.deleted']);
    // Another project's webhook does not count.
    expect((await written(() => joinWaitlist(store, qctx, { email: 'q3@x.io' }))).types).toEqual([]);
    // One group commit holding a join of each project, in either order: only the join of the project
    // whose webhook subscribes writes its event (the batch shares its subscription checks per project).
    const sctx = { ...ctx, project: project('usr_o1', { id: projectId, name: 'O', slug: 'outbox-one' }) };
    for (const order of [
      [qctx, sctx],
      [sctx, qctx],
    ]) {
      const both = await written(() =>
        Promise.all(order.map((c) => joinWaitlist(store, c, { email: `${c.projectId}-${order[0]!.projectId}@x.io` }))),
      );
      expect(both.types).toEqual(['entry.created']);
    }
    // Subscribed to entry.created: written. Disabled again: not.
    await store.events.updateWebhook(quiet.id, hook.id, { events: JSON.stringify(['entry.created']) }, Date.now());
    expect((await written(() => joinWaitlist(store, qctx, { email: 'q4@x.io' }))).types).toEqual(['entry.created']);
    await store.events.updateWebhook(quiet.id, hook.id, { enabled: false }, Date.now());
    expect((await written(() => joinWaitlist(store, qctx, { email: 'q5@x.io' }))).types).toEqual([]);
    // Sign-up notices on: entry.created is written for the fan-out to turn into a notice.
    const noticed = { ...quiet, settings: JSON.stringify({ notify: 'each', notifyEmails: ['owner@x.io'] }) };
    expect((await written(() => joinWaitlist(store, { ...qctx, project: noticed }, { email: 'q6@x.io' }))).types).toEqual([
      'entry.created',
    ]);
  });

  it('an invite batch (more events than a join batch) writes entry.invited only while a webhook subscribes to it', async () => {
    const big = project('usr_o1', { id: 'prj_outbox3', slug: 'outbox-three' });
    await store.insertProject(big);
    const bctx = { ...ctx, projectId: big.id, project: big };
    const joinMany = (tag: string) =>
      Promise.all(Array.from({ length: 80 }, (_, i) => joinWaitlist(store, bctx, { email: `${tag}${i}@x.io` })));
    const invitedEvents = async (fn: () => Promise<unknown>) =>
      (await eventsWritten(fn, ['wh_o3'])).filter((e) => e.type === 'entry.invited');
    await store.events.fanOut(1000, () => []);
    await joinMany('i');
    let first!: { invited: unknown[] };
    expect(await invitedEvents(async () => (first = (await inviteEntries(store, big, { count: 80 })) as { invited: unknown[] }))).toEqual(
      [],
    );
    expect(first.invited).toHaveLength(80);
    await store.events.insertWebhook(webhook(big.id, 'wh_o3', ['entry.created', 'entry.invited']));
    const later = await joinMany('j');
    await store.events.fanOut(1000, () => []);
    const evs = await invitedEvents(() => inviteEntries(store, big, { count: 80 }));
    expect(evs).toHaveLength(80);
    expect(new Set(evs.map((e) => JSON.parse(e.payload).data.entryId))).toEqual(new Set(later.map((e) => e.id)));
  });

  it("gives a join's event that only webhooks read one delivery per enabled subscribed webhook, in the join's transaction", async () => {
    const p = project('usr_o1', { id: 'prj_outbox4', slug: 'outbox-four' });
    await store.insertProject(p);
    const hook = (id: string, events: string[], enabled = true) => store.events.insertWebhook(webhook(p.id, id, events, { enabled }));
    await hook('wh_o4a', ['entry.created']);
    await hook('wh_o4b', ['entry.deleted', 'entry.created']);
    await hook('wh_o4c', ['entry.deleted']);
    await hook('wh_o4d', ['entry.created'], false);
    await store.events.fanOut(1000, () => []);
    let wakes = 0;
    store.onOutboxWrite(() => wakes++);
    const pctx = { ...ctx, projectId: p.id, project: p };
    const joined = await Promise.all(['f1@x.io', 'f2@x.io'].map((email) => joinWaitlist(store, pctx, { email })));
    expect(wakes).toBeGreaterThan(0);
    const page = { offset: 0, limit: 10 };
    const deliveries = async (h: string) => (await store.events.listDeliveries(h, page)).rows;
    // Already fanned out at the join's commit (both dialects), so the dispatcher's fan-out finds nothing to do.
    expect(await store.events.fanOut(1000, plan)).toBe(0);
    expect(await Promise.all(['wh_o4a', 'wh_o4b', 'wh_o4c', 'wh_o4d'].map(async (h) => (await deliveries(h)).length))).toEqual([
      2, 2, 0, 0,
    ]);
    const rows = [...(await deliveries('wh_o4a')), ...(await deliveries('wh_o4b'))];
    for (const d of rows) {
      expect(d).toMatchObject({ kind: 'webhook', type: 'entry.created', status: 'pending', attempts: 0, recipient: null, data: null });
      expect(d.nextAttemptAt).toBe(d.createdAt); // due at once
    }
    expect(new Set(rows.map((d) => d.id)).size).toBe(4);
    expect(new Set(rows.map((d) => d.eventId)).size).toBe(2); // one event per join, shared by its deliveries
    const claimed = await Promise.all(rows.slice(0, 2).map((d) => store.events.claimOne('wh_o4a', d.id, Date.now(), 60_000)));
    expect(new Set(claimed.map((c) => JSON.parse(c!.payload!).data.entryId))).toEqual(new Set(joined.map((e) => e.id)));
    expect(claimed.every((c) => c!.webhookId === 'wh_o4a' && c!.webhook?.enabled === true)).toBe(true);
  });

  it('gives each event of a group commit with a duplicate the position its entry has, and the duplicate none', async () => {
    // PostgreSQL builds a batch's outbox rows while its INSERT runs, as if no row were a duplicate, and
    // builds them again when one was: the payloads must carry the positions of the entries inserted.
    const p = project('usr_o1', { id: 'prj_outbox6', slug: 'outbox-six' });
    await store.insertProject(p);
    await store.events.insertWebhook(webhook(p.id, 'wh_o6', ['entry.created']));
    const pctx = { ...ctx, projectId: p.id, project: p };
    const emails = ['q1@x.io', 'q2@x.io', 'Q1@x.io', 'q3@x.io', 'q2@X.io', 'q4@x.io'];
    const joins = await Promise.allSettled(emails.map((email) => joinWaitlist(store, pctx, { email })));
    const joined = joins.flatMap((j) => (j.status === 'fulfilled' ? [j.value] : []));
    expect(joined.map((e) => e.email).sort()).toEqual(['q1@x.io', 'q2@x.io', 'q3@x.io', 'q4@x.io']);
    const deliveries = (await store.events.listDeliveries('wh_o6', { offset: 0, limit: 10 })).rows;
    expect(deliveries).toHaveLength(4); // one event per entry inserted, none for a duplicate
    const data = await Promise.all(
      deliveries.map(async (d) => JSON.parse((await store.events.claimOne('wh_o6', d.id, Date.now(), 60_000))!.payload!).data),
    );
    const byId = new Map(data.map((d) => [d.entryId as string, d.position as number]));
    expect(new Set(byId.keys())).toEqual(new Set(joined.map((e) => e.id)));
    for (const e of joined) {
      expect(byId.get(e.id)).toBe(await positionOf(store, e)); // what the management API shows
      expect(e.position).toBe(byId.get(e.id)); // and the join's own answer
    }
    expect([...byId.values()].sort()).toEqual([1, 2, 3, 4]);
  });

  it("keeps a join event's payload exact, whatever its text holds (PostgreSQL sends it as an SQL literal)", async () => {
    const names = ['O\'Brien \\ "Ann"', "back\\slash'' and ''quotes", 'Zoë 🎉 \u0001 $1 ?', "E'\\x41' -- ;"];
    const metadata = { note: "it's \\'; DROP TABLE events; --", nested: { q: '"\'\\' } };
    const written = await eventsWritten(
      () => Promise.all(names.map((name, i) => joinWaitlist(store, ctx, { email: `lit${i}@x.io`, name, metadata }))),
      ['wh_o1'],
    );
    const created = written.filter((e) => e.type === 'entry.created').map((e) => JSON.parse(e.payload).data);
    expect(created.map((d) => d.name).sort()).toEqual([...names].sort());
    for (const d of created) expect(d.metadata).toEqual(metadata);
  });

  it('writes entry.deleted inside the delete, and queues emails in a transaction', async () => {
    const e = await joinWaitlist(store, ctx, { email: 'd@x.io' });
    await store.events.fanOut(100, () => []);
    const seen = await eventsWritten(() => deleteEntry(store, projectId, e.id), ['wh_o1']);
    expect(seen.map((x) => x.type)).toEqual(['entry.deleted']);
    expect(JSON.parse(seen[0]!.payload).data.entryId).toBe(e.id);

    await store.events.append({ emails: [newEmail(projectId, 'welcome', 'w@x.io', { leaveUrl: 'http://s/w/x/leave?token=t' })] });
    const claimed = await store.events.claimDue(Date.now() + 1, 1000, 60_000); // the earlier tests left deliveries due
    const mail = claimed.find((d) => d.kind === 'email')!;
    expect(mail).toMatchObject({ type: 'welcome', recipient: 'w@x.io' });
    expect(JSON.parse(mail.data!).leaveUrl).toContain('token=t');
    await store.events.finish(
      mail.id,
      mail.lease,
      { status: 'delivered', attempts: 1, lastStatusCode: 250, lastError: null, nextAttemptAt: null, clearData: true },
      Date.now(),
    );
    const emails = await store.events.listEmails(projectId, { offset: 0, limit: 10 });
    expect(emails.rows[0]).toMatchObject({ status: 'delivered', data: null });
  });

  it("erasure reduces the entry's own events to its id, leaves those of entries it referred whole, and drops notices about it", async () => {
    const x = await joinWaitlist(store, ctx, { email: 'leaver@x.io', name: 'Lea' });
    const y = await joinWaitlist(store, ctx, { email: 'referred@x.io', ref: x.referralCode! });
    expect(y.referredBy).toBe(x.id);
    await store.events.append({ emails: [newEmail(projectId, 'notice', 'boss@x.io', { email: 'leaver@x.io', name: 'Lea' })] });
    await store.events.append({ emails: [newEmail(projectId, 'notice', 'boss@x.io', { email: 'referred@x.io', name: null })] });
    expect(await store.lifecycle.erase(projectId, x.id, 0)).toBe(true);
    // The pending deliveries of the two joins' entry.created, with their payloads as they will be sent.
    await store.events.fanOut(100, plan);
    const payloads = new Map<string, { data: Record<string, unknown> }>();
    for (const d of (await store.events.listDeliveries('wh_o1', { offset: 0, limit: 1000 })).rows) {
      const claimed = await store.events.claimOne('wh_o1', d.id, Date.now(), 60_000);
      const p = JSON.parse(claimed!.payload!) as { type: string; data: Record<string, unknown> };
      if (p.type === 'entry.created' && (p.data.entryId === x.id || p.data.email === 'referred@x.io' || p.data.entryId === y.id)) {
        payloads.set(String(p.data.email ?? p.data.entryId), p);
      }
    }
    expect(payloads.get(x.id)!.data).toEqual({ entryId: x.id });
    expect(payloads.get('referred@x.io')!.data).toMatchObject({ entryId: y.id, email: 'referred@x.io', referredBy: x.id });
    const notices = (await store.events.listEmails(projectId, { offset: 0, limit: 100 })).rows.filter((r) => r.type === 'notice');
    expect(notices.map((n) => [n.recipient, n.status, n.data === null])).toEqual(
      expect.arrayContaining([
        [null, 'failed', true],
        ['boss@x.io', 'pending', false],
      ]),
    );
    expect(notices.find((n) => n.data?.includes('leaver@x.io'))).toBeUndefined();
  });
});
