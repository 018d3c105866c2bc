// The Store conformance suite (in the manner of lucia's packages/adapter-test): one behaviour, written
// once, run against every adapter in adapters.ts. Each test makes its own user and projects, so the
// tests share one database per adapter and stay independent.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { QueuePositions } from '../../src/core/lifecycle.js';
import {
  type EntryRow,
  type ExportedEntry,
  type KeyRow,
  type ProjectRow,
  type Store,
  UNTOUCHED_LIFECYCLE,
  type UserRow,
} from '../../src/db/store.js';
import type { WebhookRow } from '../../src/db/outbox.js';
import type { Adapter } from './adapters.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10, 12); // a fixed noon, so day arithmetic is exact
const uniq = () => randomBytes(5).toString('hex');

export function user(over: Partial<UserRow> = {}): UserRow {
  const email = `u-${uniq()}@Example.com`;
  return { id: newId('usr'), email, emailNorm: email.toLowerCase(), name: null, passwordHash: 'h', createdAt: T0, updatedAt: T0, ...over };
}
export function project(userId: string, over: Partial<ProjectRow> = {}): ProjectRow {
  return {
    id: newId('prj'),
    userId,
    name: 'P',
    slug: `p-${uniq()}`,
    createdAt: T0,
    updatedAt: T0,
    deletedAt: null,
    allowedOrigins: null,
    blockDisposable: false,
    honeypotField: null,
    settings: '{}',
    ...over,
  };
}
export function key(projectId: string, over: Partial<KeyRow> = {}): KeyRow {
  return {
    id: newId('key'),
    projectId,
    name: 'k',
    lookup: uniq(),
    prefix: 'wl_abc',
    secretHash: 'bcrypt-hash',
    createdAt: T0,
    updatedAt: T0,
    lastUsedAt: null,
    revokedAt: null,
    kind: 'publishable',
    ...over,
  };
}
/** A webhook row of `projectId` to http://example.com/h for `events`, enabled, with no previous secret. */
export function webhook(projectId: string, id: string, events: string[], over: Partial<WebhookRow> = {}): WebhookRow {
  const now = Date.now();
  return {
    id,
    projectId,
    url: 'http://example.com/h',
    events: JSON.stringify(events),
    secret: 'whsec_x',
    enabled: true,
    createdAt: now,
    updatedAt: now,
    previousSecret: null,
    previousSecretExpiresAt: null,
    ...over,
  };
}
/** A delivery attempt that succeeded (200), for `store.events.finish`. */
export const DELIVERED = {
  status: 'delivered' as const,
  attempts: 1,
  lastStatusCode: 200,
  lastError: null,
  nextAttemptAt: null,
  clearData: true,
};
export function entry(projectId: string, over: Partial<EntryRow> = {}): EntryRow {
  const email = over.email ?? `e-${uniq()}@example.com`;
  return {
    id: newId('ent'),
    projectId,
    email,
    emailNorm: email.trim().toLowerCase(),
    name: null,
    source: 'landing-page',
    metadata: '{}',
    fields: '{}',
    ip: null,
    country: null,
    userAgent: null,
    createdAt: T0,
    updatedAt: T0,
    deletedAt: null,
    status: 'waiting',
    ...UNTOUCHED_LIFECYCLE, // the ordinal is given by the store
    referralCode: null,
    ...over,
  };
}

/** An account, a project (with `settings`, JSON) and a join key for it, written to `store`. */
export async function projectWithKeyIn(store: Store, settings = '{}') {
  const u = user();
  expect(await store.insertUser(u)).toBe('inserted');
  const p = project(u.id, { settings });
  expect(await store.insertProject(p)).toBe('inserted');
  const k = key(p.id);
  await store.insertKey(k);
  return { u, p, k };
}

/** Runs every Store test against one adapter. */
export function storeConformance(adapter: Adapter) {
  describe(`Store conformance: ${adapter.name}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    beforeAll(async () => {
      ({ store, dispose } = await adapter.open());
    });
    afterAll(async () => {
      await dispose?.();
    });

    /** A user with one live project and one key. */
    const fixture = () => projectWithKeyIn(store);
    const add = async (projectId: string, keyId: string, over: Partial<EntryRow> = {}) => {
      const row = entry(projectId, over);
      expect(await store.insertEntry(row, keyId)).toBe('inserted');
      return row;
    };

    it('reports its dialect', () => {
      expect(store.dialect).toBe(adapter.name);
    });

    describe('users', () => {
      it('the first user is inserted only while there is none; countUsers follows', async () => {
        expect(await store.countUsers()).toBe(0);
        const first = user();
        const racers = [user(), user(), user()];
        const results = await Promise.all([first, ...racers].map((u) => store.insertFirstUser(u)));
        expect(results.filter((r) => r === 'inserted')).toHaveLength(1);
        expect(results.filter((r) => r === 'closed')).toHaveLength(3);
        expect(await store.countUsers()).toBe(1);
      });

      it('a duplicate normalised email is reported, not thrown', async () => {
        const u = user();
        expect(await store.insertUser(u)).toBe('inserted');
        expect(await store.insertUser(user({ emailNorm: u.emailNorm, email: u.email.toUpperCase() }))).toBe('duplicate');
      });

      it('reads a user by normalised email and by id; unknown → undefined', async () => {
        const u = user({ name: 'Ada' });
        await store.insertUser(u);
        expect(await store.userByEmail(u.emailNorm)).toEqual(u);
        expect(await store.userById(u.id)).toEqual(u);
        expect(await store.userByEmail('nobody@example.com')).toBeUndefined();
        expect(await store.userById('usr_missing')).toBeUndefined();
      });

      it('sets a password and its updatedAt; an unknown user → false', async () => {
        const u = user();
        await store.insertUser(u);
        expect(await store.setUserPassword(u.id, 'new-hash', T0 + 5)).toBe(true);
        expect(await store.userById(u.id)).toMatchObject({ passwordHash: 'new-hash', updatedAt: T0 + 5 });
        expect(await store.setUserPassword('usr_missing', 'x', T0)).toBe(false);
      });
    });

    describe('sessions', () => {
      it('a live session resolves with its user; an expired one does not', async () => {
        const u = user();
        await store.insertUser(u);
        const s = { tokenHash: uniq(), userId: u.id, createdAt: T0, expiresAt: T0 + 1000 };
        await store.insertSession(s);
        expect(await store.sessionByHash(s.tokenHash, T0 + 999)).toEqual({ session: s, user: u });
        expect(await store.sessionByHash(s.tokenHash, T0 + 1000)).toBeUndefined(); // expiresAt is exclusive
        expect(await store.sessionByHash('unknown', T0)).toBeUndefined();
      });

      it('extends and deletes a session; deleteUserSessions ends only that user’s', async () => {
        const [a, b] = [user(), user()];
        await store.insertUser(a);
        await store.insertUser(b);
        const mk = (userId: string) => ({ tokenHash: uniq(), userId, createdAt: T0, expiresAt: T0 + 10 });
        const [a1, a2, b1] = [mk(a.id), mk(a.id), mk(b.id)];
        for (const s of [a1, a2, b1]) await store.insertSession(s);
        await store.extendSession(a1.tokenHash, T0 + 500);
        expect((await store.sessionByHash(a1.tokenHash, T0 + 100))?.session.expiresAt).toBe(T0 + 500);
        await store.deleteSession(a1.tokenHash);
        expect(await store.sessionByHash(a1.tokenHash, T0)).toBeUndefined();
        await store.deleteSession('unknown'); // no error
        await store.deleteUserSessions(a.id);
        expect(await store.sessionByHash(a2.tokenHash, T0)).toBeUndefined();
        expect(await store.sessionByHash(b1.tokenHash, T0)).toBeDefined();
      });
    });

    describe('projects', () => {
      it('inserts and reads back every field exactly (booleans as booleans, settings as text)', async () => {
        const u = user();
        await store.insertUser(u);
        const p = project(u.id, {
          allowedOrigins: '["https://a.example"]',
          blockDisposable: true,
          honeypotField: 'hp',
          settings: '{"x":1}',
        });
        expect(await store.insertProject(p)).toBe('inserted');
        expect(await store.projectForUser(u.id, p.id)).toEqual(p);
        expect(await store.projectBySlug(p.slug)).toEqual(p);
        expect(await store.projectByIdAny(p.id)).toEqual(p);
      });

      it('a slug is unique on the server, soft-deleted projects included', async () => {
        const { u, p } = await fixture();
        expect(await store.insertProject(project(u.id, { slug: p.slug }))).toBe('duplicate');
        await store.softDeleteProject(p.id, T0 + 1);
        const other = user();
        await store.insertUser(other);
        expect(await store.insertProject(project(other.id, { slug: p.slug }))).toBe('duplicate');
      });

      it('projectForUser takes an id or a slug, and only the owner’s live projects', async () => {
        const { u, p } = await fixture();
        const stranger = user();
        await store.insertUser(stranger);
        expect((await store.projectForUser(u.id, p.slug))?.id).toBe(p.id);
        expect(await store.projectForUser(stranger.id, p.id)).toBeUndefined();
        expect(await store.projectForUser(stranger.id, p.slug)).toBeUndefined();
        await store.softDeleteProject(p.id, T0 + 1);
        expect(await store.projectForUser(u.id, p.id)).toBeUndefined();
        expect(await store.projectBySlug(p.slug)).toBeUndefined();
        expect((await store.projectByIdAny(p.id))?.deletedAt).toBe(T0 + 1);
      });

      it('lists the owner’s live projects newest first, with a total; a page past the end is empty', async () => {
        const u = user();
        await store.insertUser(u);
        const ps = [];
        for (let i = 0; i < 5; i++) {
          const p = project(u.id, { name: `P${i}` });
          await store.insertProject(p);
          ps.push(p);
        }
        await store.softDeleteProject(ps[0]!.id, T0 + 1);
        const page1 = await store.listProjects(u.id, { offset: 0, limit: 3 });
        expect(page1.total).toBe(4);
        expect(page1.rows.map((r) => r.name)).toEqual(['P4', 'P3', 'P2']);
        const page2 = await store.listProjects(u.id, { offset: 3, limit: 3 });
        expect(page2.rows.map((r) => r.name)).toEqual(['P1']);
        expect(await store.listProjects(u.id, { offset: 100, limit: 3 })).toEqual({ rows: [], total: 4 });
      });

      it('rename, soft delete and restore answer the row, and undefined when there is nothing to change', async () => {
        const { p } = await fixture();
        expect(await store.renameProject(p.id, 'New', T0 + 2)).toMatchObject({ name: 'New', updatedAt: T0 + 2 });
        expect(await store.softDeleteProject(p.id, T0 + 3)).toMatchObject({ deletedAt: T0 + 3 });
        expect(await store.softDeleteProject(p.id, T0 + 4)).toBeUndefined();
        expect(await store.renameProject(p.id, 'Gone', T0 + 4)).toBeUndefined();
        expect(await store.updateProjectSettings(p.id, { blockDisposable: true })).toBeUndefined();
        expect(await store.restoreProject(p.id, T0 + 5)).toMatchObject({ deletedAt: null, updatedAt: T0 + 5, name: 'New' });
        expect(await store.restoreProject('prj_missing', T0)).toBeUndefined();
        expect(await store.renameProject('prj_missing', 'x', T0)).toBeUndefined();
      });

      it('updateProjectSettings changes only the fields given, not updatedAt; settings fields are merged', async () => {
        const { p } = await fixture();
        const after = await store.updateProjectSettings(p.id, { honeypotField: 'website', features: { doubleOptIn: false } });
        expect(after).toEqual({
          ...p,
          honeypotField: 'website',
          settings: JSON.stringify({ ...JSON.parse(p.settings || '{}'), doubleOptIn: false }),
        });
        const again = await store.updateProjectSettings(p.id, { blockDisposable: true, allowedOrigins: null });
        expect(again).toEqual({ ...after, blockDisposable: true });
        expect(await store.projectBySlug(p.slug)).toEqual(again);
        // Fields of the settings JSON given later are set over the stored ones; the others are kept.
        const merged = await store.updateProjectSettings(p.id, { features: { pageTitle: 'T', doubleOptIn: true } });
        expect(JSON.parse(merged!.settings!)).toEqual({ ...JSON.parse(p.settings || '{}'), doubleOptIn: true, pageTitle: 'T' });
      });
    });

    describe('api keys', () => {
      it('lists a project’s live keys newest first; revoked keys are gone from list and reads', async () => {
        const { p, k } = await fixture();
        const k2 = key(p.id, { name: 'second' });
        await store.insertKey(k2);
        expect(await store.listKeys(p.id, { offset: 0, limit: 10 })).toEqual({ rows: [k2, k], total: 2 });
        expect(await store.revokeKey(p.id, k.id, T0 + 1)).toMatchObject({ revokedAt: T0 + 1, updatedAt: T0 + 1 });
        expect(await store.listKeys(p.id, { offset: 0, limit: 10 })).toEqual({ rows: [k2], total: 1 });
        expect(await store.keyInProject(p.id, k.id)).toBeUndefined();
        expect(await store.renameKey(p.id, k.id, 'x', T0 + 2)).toBeUndefined();
        expect(await store.revokeKey(p.id, k.id, T0 + 2)).toBeUndefined();
        expect(await store.listKeys(p.id, { offset: 5, limit: 10 })).toEqual({ rows: [], total: 1 });
      });

      it('a key is reached only through its own project', async () => {
        const { p, k } = await fixture();
        const { p: other } = await fixture();
        expect(await store.keyInProject(p.id, k.id)).toEqual(k);
        expect(await store.keyInProject(other.id, k.id)).toBeUndefined();
        expect(await store.renameKey(other.id, k.id, 'x', T0)).toBeUndefined();
        expect(await store.revokeKey(other.id, k.id, T0)).toBeUndefined();
        expect(await store.renameKey(p.id, k.id, 'renamed', T0 + 1)).toEqual({ ...k, name: 'renamed', updatedAt: T0 + 1 });
      });

      it('keyForAuth finds a key by lookup id, revoked ones too (the caller refuses them)', async () => {
        const { p, k } = await fixture();
        expect(await store.keyForAuth(k.lookup)).toEqual({
          id: k.id,
          projectId: p.id,
          secretHash: k.secretHash,
          revokedAt: null,
          kind: 'publishable',
        });
        await store.revokeKey(p.id, k.id, T0 + 9);
        expect(await store.keyForAuth(k.lookup)).toMatchObject({ id: k.id, revokedAt: T0 + 9 });
        expect(await store.keyForAuth('missing')).toBeUndefined();
      });
    });

    describe('entries', () => {
      it('inserts and reads back every field; a join sets its key’s lastUsedAt', async () => {
        const { p, k } = await fixture();
        const e = await add(p.id, k.id, {
          name: 'Zoë',
          metadata: '{"plan":"pro"}',
          ip: '203.0.113.9',
          country: 'DE',
          userAgent: 'UA/1',
          source: 'ads',
        });
        expect(await store.entryInProject(p.id, e.id)).toEqual(e);
        expect((await store.keyInProject(p.id, k.id))?.lastUsedAt).toEqual(expect.any(Number));
      });

      it('a join sets its key’s lastUsedAt to the join’s time, a duplicate join too; other keys are untouched', async () => {
        const { p, k } = await fixture();
        const k2 = key(p.id);
        const k3 = key(p.id);
        await store.insertKey(k2);
        await store.insertKey(k3);
        await add(p.id, k.id, { email: 'used@example.com', createdAt: T0 + 7 });
        expect((await store.keyInProject(p.id, k.id))?.lastUsedAt).toBe(T0 + 7);
        expect(await store.insertEntry(entry(p.id, { email: 'used@example.com', createdAt: T0 + 50 }), k2.id)).toBe('duplicate');
        expect((await store.keyInProject(p.id, k2.id))?.lastUsedAt).toBe(T0 + 50);
        expect((await store.keyInProject(p.id, k3.id))?.lastUsedAt).toBeNull();
        expect((await store.keyInProject(p.id, k.id))?.lastUsedAt).toBe(T0 + 7);
      });

      it('one live entry per normalised email and project; another project may have it; deleted frees it', async () => {
        const { p, k } = await fixture();
        const { p: p2, k: k2 } = await fixture();
        const e = await add(p.id, k.id, { email: 'Dup@Example.com' });
        expect(await store.insertEntry(entry(p.id, { email: 'dup@example.com' }), k.id)).toBe('duplicate');
        await add(p2.id, k2.id, { email: 'dup@example.com' });
        expect(await store.softDeleteEntry(p.id, e.id, T0 + 1)).toMatchObject({ deletedAt: T0 + 1 });
        const again = await add(p.id, k.id, { email: 'dup@example.com' });
        expect(again.id).not.toBe(e.id);
        expect((await store.listEntries(p.id, { offset: 0, limit: 10 })).total).toBe(1);
      });

      it('concurrent identical joins: exactly one is inserted', async () => {
        const { p, k } = await fixture();
        const results = await Promise.all(
          Array.from({ length: 30 }, () => store.insertEntry(entry(p.id, { email: 'race@example.com' }), k.id)),
        );
        expect(results.filter((r) => r === 'inserted')).toHaveLength(1);
        expect(results.filter((r) => r === 'duplicate')).toHaveLength(29);
      });

      it('referred joins of one batch credit their referrers, several to one referrer summed, and move them up', async () => {
        const { p, k } = await projectWithKeyIn(store, JSON.stringify({ referralBoost: 2 }));
        const [a, b, c] = [await add(p.id, k.id), await add(p.id, k.id), await add(p.id, k.id)];
        for (let i = 0; i < 4; i++) await add(p.id, k.id);
        // One batch: three joins referred by c, one by b, one pending (never credits), one duplicate.
        const results = await Promise.all([
          store.insertEntry(entry(p.id, { referredBy: c.id }), k.id),
          store.insertEntry(entry(p.id, { referredBy: b.id }), k.id),
          store.insertEntry(entry(p.id, { referredBy: c.id }), k.id),
          store.insertEntry(entry(p.id, { referredBy: c.id }), k.id),
          store.insertEntry(entry(p.id, { referredBy: a.id, status: 'pending' }), k.id),
          store.insertEntry(entry(p.id, { referredBy: a.id, email: a.email }), k.id),
        ]);
        expect(results).toEqual(['inserted', 'inserted', 'inserted', 'inserted', 'inserted', 'duplicate']);
        const [ra, rb, rc] = await Promise.all([a, b, c].map((e) => store.entryInProject(p.id, e.id)));
        expect([ra?.referrals, rb?.referrals, rc?.referrals]).toEqual([0, 1, 3]);
        // k = ordinal − boost × referrals: c (ordinal 3) moves 6 places, ahead of a and b.
        expect(rc!.k).toBe(rc!.ordinal - 6);
        expect(rb!.k).toBe(rb!.ordinal - 2);
        const positions = await store.lifecycle.positions(p.id, [ra!, rb!, rc!]);
        expect([positions.get(c.id), positions.get(b.id), positions.get(a.id)]).toEqual([1, 2, 3]);
      });

      it('statusByToken answers the row with the position positions() gives and the waiting total, in one read', async () => {
        const { p, k } = await projectWithKeyIn(store, JSON.stringify({ referralBoost: 3 }));
        // k values across several buckets of 1024, negative ones included (referrals push k below 0).
        await store.lifecycle.reserveOrdinals(p.id, 2500);
        const rows: EntryRow[] = [];
        for (let i = 0; i < 12; i++) rows.push(await add(p.id, k.id, { statusTokenHash: `st-${uniq()}`, referralCode: `sc-${uniq()}` }));
        for (const [i, times] of [
          [5, 900],
          [9, 2],
          [11, 1],
        ] as const) {
          await Promise.all(Array.from({ length: times }, () => add(p.id, k.id, { referredBy: rows[i]!.id })));
        }
        const pending = await add(p.id, k.id, { statusTokenHash: `st-${uniq()}`, status: 'pending' });
        const gone = await add(p.id, k.id, { statusTokenHash: `st-${uniq()}` });
        await store.softDeleteEntry(p.id, gone.id, T0 + 1);
        const fresh = await Promise.all(rows.map((r) => store.entryInProject(p.id, r.id)));
        const expected = await store.lifecycle.positions(
          p.id,
          fresh.map((r) => r!),
        );
        const total = await store.lifecycle.waitingTotal(p.id);
        expect(fresh[5]!.k).toBeLessThan(0);
        for (const r of fresh) {
          const got = await store.lifecycle.statusByToken(r!.statusTokenHash!);
          expect(got?.row.id).toBe(r!.id);
          expect(got?.row.referrals).toBe(r!.referrals);
          expect([r!.k, got?.position]).toEqual([r!.k, expected.get(r!.id)]);
          expect(got?.total).toBe(total);
        }
        expect((await store.lifecycle.statusByToken(pending.statusTokenHash!))?.position).toBeNull();
        expect(await store.lifecycle.statusByToken(gone.statusTokenHash!)).toBeUndefined();
        expect(await store.lifecycle.statusByToken('no-such-hash')).toBeUndefined();
      });

      it('queueKeys pages the whole queue in order; positions read from it equal positions()', async () => {
        const { p, k } = await projectWithKeyIn(store, JSON.stringify({ referralBoost: 2 }));
        const first: EntryRow[] = [];
        for (let i = 0; i < 9; i++) first.push(await add(p.id, k.id));
        // Credits give ties in k (ordinal 5 with one referral and ordinal 3 both have k 3), broken by ordinal.
        await add(p.id, k.id, { referredBy: first[4]!.id });
        await add(p.id, k.id, { referredBy: first[8]!.id });
        await add(p.id, k.id, { referredBy: first[8]!.id });
        await add(p.id, k.id, { status: 'pending' });
        await store.softDeleteEntry(p.id, first[1]!.id, T0 + 1);
        const rows = (await store.entriesBefore(p.id, null, 100)).filter((r) => r.status === 'waiting');
        expect(rows).toHaveLength(11);
        const keys: [number, number][] = [];
        for (let after: [number, number] | null = null; ; ) {
          const page = await store.lifecycle.queueKeys(p.id, after, 3);
          keys.push(...page);
          if (page.length < 3) break;
          after = page[page.length - 1]!;
        }
        const sorted = rows.map((r): [number, number] => [r.k, r.ordinal]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
        expect(keys).toEqual(sorted);
        expect(new Set(keys.map((x) => x[0])).size).toBeLessThan(keys.length); // the page boundaries met a tie
        const exact = await store.lifecycle.positions(p.id, rows);
        for (const size of [1, 3, 4, 100]) {
          const q = await QueuePositions.read(store, p.id, size);
          for (const r of rows) expect(q.of(r), `${r.id} page ${size}`).toBe(exact.get(r.id));
        }
        // A row whose k moved after the read, and one that was not waiting then, are not answered.
        const q = await QueuePositions.read(store, p.id);
        expect(q.of({ ...rows[0]!, k: rows[0]!.k - 1 })).toBeUndefined();
        expect(q.of({ k: 0, ordinal: 10_000 })).toBeUndefined();
        // Ordinals far beyond the queue's size are not held (memory stays bounded by the queue): such a
        // row is left to the exact ranking, the others still answered.
        await store.lifecycle.reserveOrdinals(p.id, 3_000_000);
        const far = await add(p.id, k.id);
        const [farRow] = await store.entriesBefore(p.id, null, 1);
        expect(farRow!.id).toBe(far.id);
        expect(farRow!.ordinal).toBeGreaterThan(3_000_000);
        const q2 = await QueuePositions.read(store, p.id);
        expect(q2.of(farRow!)).toBeUndefined();
        expect((await store.lifecycle.positions(p.id, [farRow!])).get(far.id)).toBe(12);
        for (const r of rows) expect(q2.of(r)).toBe(exact.get(r.id));
      });

      it('insertEntry resolves a ref in its batch: codes of the project only, live entries only; the outbox sees the referrer', async () => {
        const one = await fixture();
        const two = await fixture();
        const a = await add(one.p.id, one.k.id, { referralCode: `a-${uniq()}` });
        const b = await add(two.p.id, two.k.id, { referralCode: `b-${uniq()}` });
        const gone = await add(one.p.id, one.k.id, { referralCode: `g-${uniq()}` });
        await store.softDeleteEntry(one.p.id, gone.id, T0 + 1);
        const built: (string | null)[] = [];
        const join = (projectId: string, keyId: string, ref: string | undefined, over: Partial<EntryRow> = {}) => {
          const row = entry(projectId, over);
          const result = store.insertEntry(row, keyId, (inserted) => (built.push(inserted.referredBy), {}), ref);
          return result.then((r) => ({ r, referredBy: row.referredBy }));
        };
        // One batch (one event-loop turn): every kind of ref together.
        const got = await Promise.all([
          join(one.p.id, one.k.id, a.referralCode!),
          join(two.p.id, two.k.id, b.referralCode!),
          join(one.p.id, one.k.id, b.referralCode!), // another project's code
          join(one.p.id, one.k.id, gone.referralCode!), // a deleted entry's code
          join(one.p.id, one.k.id, 'no-such-code'),
          join(one.p.id, one.k.id, a.referralCode!), // the same code twice in one batch
          join(one.p.id, one.k.id, 'no-such-code', { referredBy: gone.id }), // a row's own referredBy wins
          join(one.p.id, one.k.id, a.referralCode!, { email: a.email }), // a duplicate: no outbox
        ]);
        expect(got[7]!.r).toBe('duplicate');
        expect(got.slice(0, 7)).toEqual([
          { r: 'inserted', referredBy: a.id },
          { r: 'inserted', referredBy: b.id },
          { r: 'inserted', referredBy: null },
          { r: 'inserted', referredBy: null },
          { r: 'inserted', referredBy: null },
          { r: 'inserted', referredBy: a.id },
          { r: 'inserted', referredBy: gone.id },
        ]);
        expect(built.sort()).toEqual([a.id, a.id, b.id, gone.id, null, null, null].sort());
        // Stored as answered, and each waiting referred join credited its live referrer once.
        const [ra, rb] = await Promise.all([store.entryInProject(one.p.id, a.id), store.entryInProject(two.p.id, b.id)]);
        expect([ra?.referrals, rb?.referrals]).toEqual([2, 1]);
        const stored = (await store.listEntries(one.p.id, { limit: 100, offset: 0 })).rows;
        expect(stored.filter((e) => e.referredBy === a.id)).toHaveLength(2);
        expect(stored.filter((e) => e.referredBy === b.id)).toHaveLength(0);
      });

      it('a failed batch is retried row by row: a referred join keeps its ref and credits its referrer once', async () => {
        const { p, k } = await fixture();
        const a = await add(p.id, k.id, { referralCode: `r-${uniq()}` });
        const good = entry(p.id);
        const bad = entry('prj_does_not_exist'); // foreign key violation: the batch fails, then each row alone
        const results = await Promise.allSettled([
          store.insertEntry(good, k.id, undefined, a.referralCode!),
          store.insertEntry(bad, k.id, undefined, a.referralCode!),
        ]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
        expect(good.referredBy).toBe(a.id);
        expect((await store.entryInProject(p.id, a.id))?.referrals).toBe(1);
      });

      it('a row the database refuses fails alone; its batch neighbours are inserted', async () => {
        const { p, k } = await fixture();
        const good = [entry(p.id), entry(p.id)];
        const bad = entry('prj_does_not_exist'); // foreign key violation
        const results = await Promise.allSettled([
          store.insertEntry(good[0]!, k.id),
          store.insertEntry(bad, k.id),
          store.insertEntry(good[1]!, k.id),
        ]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        expect((await store.listEntries(p.id, { offset: 0, limit: 10 })).total).toBe(2);
      });

      it('lists newest first with an exact total; every page, from either end, and past the end', async () => {
        const { p, k } = await fixture();
        const other = await fixture(); // its entries sit between and after this project's: never listed
        const rows: EntryRow[] = [];
        for (let i = 0; i < 23; i++) {
          rows.push(await add(p.id, k.id, { createdAt: T0 + i }));
          if (i % 3 === 0) await add(other.p.id, other.k.id, { createdAt: T0 + i });
        }
        for (let i = 0; i < 7; i++) await add(other.p.id, other.k.id, { createdAt: T0 + 50 + i });
        await store.softDeleteEntry(p.id, rows[5]!.id, T0 + 100);
        const live = rows.filter((_, i) => i !== 5).reverse();
        const seen: string[] = [];
        for (let offset = 0; offset < 22; offset += 4) {
          const page = await store.listEntries(p.id, { offset, limit: 4 });
          expect(page.total).toBe(22);
          seen.push(...page.rows.map((r) => r.id));
        }
        expect(seen).toEqual(live.map((r) => r.id));
        // Deep pages (nearer the end than the start) must give the same rows.
        expect((await store.listEntries(p.id, { offset: 19, limit: 5 })).rows.map((r) => r.id)).toEqual(live.slice(19).map((r) => r.id));
        expect(await store.listEntries(p.id, { offset: 22, limit: 5 })).toEqual({ rows: [], total: 22 });
        expect(await store.listEntries(p.id, { offset: 1000, limit: 5 })).toEqual({ rows: [], total: 22 });
      });

      it('an empty project lists nothing with total 0', async () => {
        const { p } = await fixture();
        expect(await store.listEntries(p.id, { offset: 0, limit: 20 })).toEqual({ rows: [], total: 0 });
        expect(await store.listEntries(p.id, { offset: 0, limit: 20 }, 'abc')).toEqual({ rows: [], total: 0 });
        expect(await store.entriesBefore(p.id, null, 10)).toEqual([]);
      });

      describe('search', () => {
        let pid: string;
        const names: Record<string, EntryRow> = {};
        beforeAll(async () => {
          const { p, k } = await fixture();
          pid = p.id;
          const specs: [string, string, string | null][] = [
            ['alpha', 'Alice.Smith@Example.com', 'Alice Smith'],
            ['pct', 'percent@example.com', '(100% sure)'],
            ['under', 'under_score@example.com', null],
            ['plainunder', 'underXscore@example.com', null],
            ['backslash', 'back@example.com', 'a\\b'],
            ['quote', 'quote@example.com', 'say "hi"'],
            ['unicode', 'eclair@example.com', 'ÉCLAIR Zoë'],
            ['bob', 'bob@example.org', 'Bob'],
          ];
          for (const [tag, email, name] of specs) names[tag] = await add(pid, k.id, { email, name });
          const deleted = await add(pid, k.id, { email: 'alice.deleted@example.com', name: 'Alice Deleted' });
          await store.softDeleteEntry(pid, deleted.id, T0 + 1);
        });
        const hits = async (q: string) => {
          const r = await store.listEntries(pid, { offset: 0, limit: 50 }, q);
          expect(r.total).toBe(r.rows.length);
          const exported = await store.entriesBefore(pid, null, 50, q);
          expect(exported.map((e) => e.id)).toEqual(r.rows.map((e) => e.id));
          return r.rows.map((e) => Object.entries(names).find(([, v]) => v.id === e.id)?.[0]).sort();
        };

        it('is a case-insensitive substring of email or name, deleted entries never match', async () => {
          expect(await hits('alice')).toEqual(['alpha']);
          expect(await hits('SMITH')).toEqual(['alpha']);
          expect(await hits('example.org')).toEqual(['bob']);
          expect(await hits('nothing-like-this')).toEqual([]);
        });

        it('short needles (1-2 characters) work too', async () => {
          expect(await hits('bo')).toEqual(['bob']);
          expect(await hits('%')).toEqual(['pct']);
          expect(await hits('Ë')).toEqual(['unicode']);
        });

        it('%, _, \\ and " are literal', async () => {
          expect(await hits('100%')).toEqual(['pct']);
          expect(await hits('r_s')).toEqual(['under']);
          expect(await hits('_')).toEqual(['under']);
          expect(await hits('a\\b')).toEqual(['backslash']);
          expect(await hits('"hi"')).toEqual(['quote']);
        });

        it('FTS syntax in a needle is literal text', async () => {
          expect(await hits('say "')).toEqual(['quote']);
          expect(await hits('bob OR alice')).toEqual([]);
          expect(await hits('ali*')).toEqual([]);
          expect(await hits('(100')).toEqual(['pct']);
        });

        it('pages a search with its full total; past the end is empty with the same total', async () => {
          const all = await store.listEntries(pid, { offset: 0, limit: 50 }, 'example.com');
          expect(all.total).toBeGreaterThanOrEqual(7);
          const second = await store.listEntries(pid, { offset: 1, limit: 2 }, 'example.com');
          expect(second.total).toBe(all.total);
          expect(second.rows.map((r) => r.id)).toEqual(all.rows.slice(1, 3).map((r) => r.id));
          expect(await store.listEntries(pid, { offset: all.total, limit: 2 }, 'example.com')).toEqual({ rows: [], total: all.total });
        });

        it('folds case beyond ASCII', async () => {
          expect(await hits('éclair')).toEqual(['unicode']);
          expect(await hits('ZOË')).toEqual(['unicode']);
        });
      });

      it('entriesBefore walks every live entry newest first in chunks, with or without a search', async () => {
        const { p, k } = await fixture();
        const rows: EntryRow[] = [];
        for (let i = 0; i < 7; i++) rows.push(await add(p.id, k.id, { name: i % 2 ? 'odd one' : 'even one' }));
        await store.softDeleteEntry(p.id, rows[3]!.id, T0 + 1);
        const walk = async (search?: string) => {
          const out: string[] = [];
          let before: string | null = null;
          for (;;) {
            const chunk: ExportedEntry[] = await store.entriesBefore(p.id, before, 2, search);
            if (!chunk.length) break;
            out.push(...chunk.map((r) => r.id));
            before = chunk.at(-1)!.id;
          }
          return out;
        };
        expect(await walk()).toEqual(
          rows
            .filter((_, i) => i !== 3)
            .reverse()
            .map((r) => r.id),
        );
        expect(await walk('odd')).toEqual([rows[5]!.id, rows[1]!.id]);
        // An export reads what it writes and the queue key: never a token or code hash.
        const [one] = await store.entriesBefore(p.id, null, 1);
        expect(Object.keys(one!).sort()).toEqual(
          ['id', 'email', 'name', 'source', 'metadata', 'ip', 'country', 'userAgent', 'createdAt', 'updatedAt', 'status', 'ordinal', 'k']
            .concat(['referralCode', 'referredBy', 'referrals', 'confirmedAt', 'invitedAt', 'acceptedAt', 'fields'])
            .sort(),
        );
        expect(one).toMatchObject({ id: rows[6]!.id, email: rows[6]!.email, name: 'even one', status: 'waiting', referrals: 0 });
      });

      it('an entry is reached only through its own project; update changes name/metadata and updatedAt', async () => {
        const { p, k } = await fixture();
        const { p: other } = await fixture();
        const e = await add(p.id, k.id, { name: 'Before' });
        expect(await store.entryInProject(other.id, e.id)).toBeUndefined();
        expect(await store.updateEntry(other.id, e.id, { name: 'x' }, T0)).toBeUndefined();
        expect(await store.softDeleteEntry(other.id, e.id, T0)).toBeUndefined();
        expect(await store.updateEntry(p.id, e.id, { metadata: '{"a":1}' }, T0 + 1)).toEqual({
          ...e,
          metadata: '{"a":1}',
          updatedAt: T0 + 1,
        });
        expect(await store.updateEntry(p.id, e.id, { name: null }, T0 + 2)).toEqual({
          ...e,
          name: null,
          metadata: '{"a":1}',
          updatedAt: T0 + 2,
        });
      });

      it('a soft-deleted entry cannot be read, updated or deleted again', async () => {
        const { p, k } = await fixture();
        const e = await add(p.id, k.id);
        expect(await store.softDeleteEntry(p.id, e.id, T0 + 1)).toMatchObject({ id: e.id, deletedAt: T0 + 1, updatedAt: T0 + 1 });
        expect(await store.entryInProject(p.id, e.id)).toBeUndefined();
        expect(await store.updateEntry(p.id, e.id, { name: 'x' }, T0 + 2)).toBeUndefined();
        expect(await store.softDeleteEntry(p.id, e.id, T0 + 2)).toBeUndefined();
      });
    });

    describe('stats', () => {
      it('counts live entries only: total, per UTC day since a day, top sources and countries', async () => {
        const { p, k } = await fixture();
        const day0 = Math.floor(T0 / DAY);
        const specs: [number, string, string | null][] = [
          [0, 'ads', 'DE'],
          [0, 'ads', 'DE'],
          [0, 'blog', null],
          [-1, 'ads', 'FR'],
          [-3, 'zine', 'FR'],
          [-40, 'old', 'US'], // before sinceDay: in the totals, not in perDay
        ];
        for (const [d, source, country] of specs) await add(p.id, k.id, { createdAt: T0 + d * DAY, source, country });
        const gone = await add(p.id, k.id, { createdAt: T0, source: 'ads', country: 'DE' });
        await store.softDeleteEntry(p.id, gone.id, T0 + 1);

        const st = await store.stats(p.id, day0 - 29);
        expect(st.total).toBe(6);
        expect([...st.perDay].sort((a, b) => a.day - b.day)).toEqual([
          { day: day0 - 3, count: 1 },
          { day: day0 - 1, count: 1 },
          { day: day0, count: 3 },
        ]);
        expect(st.topSources).toEqual([
          { source: 'ads', count: 3 },
          { source: 'blog', count: 1 },
          { source: 'old', count: 1 },
          { source: 'zine', count: 1 },
        ]);
        expect(st.topCountries).toEqual([
          { country: 'DE', count: 2 },
          { country: 'FR', count: 2 },
          { country: 'US', count: 1 },
        ]);
      });

      it('breaks count ties by byte order of the name (upper case first), the day boundary counts from its first millisecond', async () => {
        const { p, k } = await fixture();
        const day0 = Math.floor(T0 / DAY);
        for (const source of ['beta', 'Zeta', 'alpha', 'Alpha']) await add(p.id, k.id, { source, createdAt: day0 * DAY });
        await add(p.id, k.id, { source: 'x', createdAt: day0 * DAY - 1 });
        const st = await store.stats(p.id, day0);
        expect(st.topSources.map((s) => s.source)).toEqual(['Alpha', 'Zeta', 'alpha', 'beta', 'x']);
        expect(st.perDay).toEqual([{ day: day0, count: 4 }]);
      });

      it('keeps at most 10 sources and countries; an empty project answers zeros', async () => {
        const { p, k } = await fixture();
        for (let i = 0; i < 12; i++) await add(p.id, k.id, { source: `s${String(i).padStart(2, '0')}`, country: `C${i}` });
        const st = await store.stats(p.id, 0);
        expect(st.topSources).toHaveLength(10);
        expect(st.topCountries).toHaveLength(10);
        const { p: empty } = await fixture();
        expect(await store.stats(empty.id, 0)).toEqual({ total: 0, perDay: [], topSources: [], topCountries: [] });
      });

      it('the total follows joins, deletes and re-joins (trigger-kept counts on every dialect)', async () => {
        const { p, k } = await fixture();
        const a = await add(p.id, k.id);
        await add(p.id, k.id);
        expect((await store.stats(p.id, 0)).total).toBe(2);
        await store.softDeleteEntry(p.id, a.id, T0 + 1);
        expect((await store.stats(p.id, 0)).total).toBe(1);
        await add(p.id, k.id, { email: a.email });
        expect((await store.stats(p.id, 0)).total).toBe(2);
        expect((await store.listEntries(p.id, { offset: 0, limit: 1 })).total).toBe(2);
      });
    });

    describe('rate limiter', () => {
      it('allows `points` per window and then refuses, per key and per prefix', async () => {
        const prefix = `t${uniq()}`;
        const limiter = store.rateLimiter({ keyPrefix: prefix, points: 2, duration: 60 });
        await limiter.consume('ip-1');
        await limiter.consume('ip-1');
        await expect(limiter.consume('ip-1')).rejects.toMatchObject({ remainingPoints: 0 });
        await expect(limiter.consume('ip-2')).resolves.toMatchObject({ remainingPoints: 1 });
        const other = store.rateLimiter({ keyPrefix: `${prefix}x`, points: 2, duration: 60 });
        await expect(other.consume('ip-1')).resolves.toMatchObject({ remainingPoints: 1 });
      });
    });

    describe('close', () => {
      it('writes queued joins before closing', async () => {
        const { store: s2, dispose: d2 } = await adapter.open();
        const u = user();
        await s2.insertUser(u);
        const p = project(u.id);
        await s2.insertProject(p);
        const k = key(p.id);
        await s2.insertKey(k);
        const pending = [s2.insertEntry(entry(p.id), k.id), s2.insertEntry(entry(p.id), k.id)];
        await d2(); // closes while both joins are still queued
        expect(await Promise.all(pending)).toEqual(['inserted', 'inserted']);
      });
    });
  });
}
