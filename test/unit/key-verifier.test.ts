// KeyVerifier keeps bcrypt work bounded: one comparison per key per process, none for malformed,
// unknown, revoked or (once the key is known) wrong secrets, failures remembered, identical checks
// shared, and a cap on comparisons running and waiting.
import bcrypt from 'bcrypt';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KeyAuthRow, Store } from '../../src/db/store.js';
import { Gate, KeyVerifier } from '../../src/core/keys.js';

const LOOKUP = 'abcdefghijkl';
const SECRET = 'S'.repeat(32);
const other = (c: string) => c.repeat(32);
let row: KeyAuthRow;

function fakeStore(get: () => KeyAuthRow | undefined) {
  const keyForAuth = vi.fn(async () => get());
  return { store: { keyForAuth } as unknown as Store, keyForAuth };
}
const bearer = (secret: string, lookup = LOOKUP) => `Bearer wl_${lookup}${secret}`;

beforeAll(async () => {
  row = { id: 'key_1', projectId: 'prj_1', secretHash: await bcrypt.hash(SECRET, 4), revokedAt: null, kind: 'publishable' };
});
afterEach(() => vi.restoreAllMocks());

describe('KeyVerifier', () => {
  it('compares with bcrypt once per key, then answers from memory', async () => {
    const spy = vi.spyOn(bcrypt, 'compare');
    const v = new KeyVerifier(fakeStore(() => row).store);
    for (let i = 0; i < 3; i++) expect((await v.verify(bearer(SECRET))).id).toBe('key_1');
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('refuses other secrets of a known key without bcrypt', async () => {
    const v = new KeyVerifier(fakeStore(() => row).store);
    await v.verify(bearer(SECRET));
    const spy = vi.spyOn(bcrypt, 'compare');
    await expect(v.verify(bearer(other('x')))).rejects.toMatchObject({ code: 'unauthorized' });
    expect(spy).not.toHaveBeenCalled();
  });

  it('rejects malformed keys before reading the database, and revoked keys even when cached', async () => {
    let current: KeyAuthRow = row;
    const { store, keyForAuth } = fakeStore(() => current);
    const v = new KeyVerifier(store);
    for (const h of [undefined, 'Basic x', 'Bearer wl_short', `Bearer xx_${LOOKUP}${SECRET}`]) {
      await expect(v.verify(h)).rejects.toMatchObject({ code: 'unauthorized' });
    }
    expect(keyForAuth).not.toHaveBeenCalled();
    await v.verify(bearer(SECRET));
    current = { ...row, revokedAt: Date.now() };
    await expect(v.verify(bearer(SECRET))).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('remembers a failed comparison and shares identical concurrent ones', async () => {
    const spy = vi.spyOn(bcrypt, 'compare');
    const v = new KeyVerifier(fakeStore(() => row).store);
    const wrong = bearer(other('w'));
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => v.verify(wrong)));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    await expect(v.verify(wrong)).rejects.toMatchObject({ code: 'unauthorized' });
    expect(spy).toHaveBeenCalledTimes(1);
    // A failure cached for this secret does not hurt the right one.
    expect((await v.verify(bearer(SECRET))).id).toBe('key_1');
  });

  it('caps comparisons running and waiting; the overflow is refused at once', async () => {
    let running = 0;
    let peak = 0;
    const real = bcrypt.compare.bind(bcrypt) as (a: string, b: string) => Promise<boolean>;
    const spy = vi.spyOn(bcrypt, 'compare').mockImplementation((async (a: string, b: string) => {
      peak = Math.max(peak, ++running);
      try {
        return await real(a, b);
      } finally {
        running--;
      }
    }) as never);
    const v = new KeyVerifier(fakeStore(() => row).store, { maxConcurrent: 1, maxQueued: 2, perKeyPending: 100, keyFailureBurst: 100 });
    const letters = 'abcdefgh'.split('');
    const results = await Promise.allSettled(letters.map((c) => v.verify(bearer(other(c)))));
    const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok'));
    expect(peak).toBe(1);
    expect(spy).toHaveBeenCalledTimes(3); // one running + two waiting; the other five refused
    // A refused check is not a wrong key: 503 with Retry-After, never 401.
    expect(codes.filter((c) => c === 'unauthorized')).toHaveLength(3);
    expect(codes.filter((c) => c === 'service_unavailable')).toHaveLength(5);
    const refused = results.find((r) => r.status === 'rejected' && (r.reason as { code: string }).code === 'service_unavailable');
    expect((refused as PromiseRejectedResult).reason.headers['Retry-After']).toBe('1');
  });
});

describe('KeyVerifier budgets (issue 10 #1)', () => {
  const rowB = () => ({ ...row, id: 'key_2', projectId: 'prj_2' });
  const LOOKUP_B = 'bbbbbbbbbbbb';
  function storeOfTwo() {
    const b = rowB();
    const keyForAuth = vi.fn(async (lookup: string) => (lookup === LOOKUP ? row : lookup === LOOKUP_B ? b : undefined));
    return { keyForAuth } as unknown as Store;
  }

  it("one key's flood of wrong secrets neither starves another key nor answers 401 to a refused check", async () => {
    const order: string[] = [];
    const real = bcrypt.compare.bind(bcrypt) as (a: string, b: string) => Promise<boolean>;
    vi.spyOn(bcrypt, 'compare').mockImplementation((async (a: string, b: string) => {
      order.push(a === SECRET ? 'B' : 'A');
      return real(a, b);
    }) as never);
    const v = new KeyVerifier(storeOfTwo(), { maxConcurrent: 1, maxQueued: 64 });
    // 40 bad secrets for key A from 40 clients, then the real secret of key B.
    const secret = (i: number) => `${String(i).padStart(4, '0')}${'a'.repeat(28)}`;
    const flood = Array.from({ length: 40 }, (_, i) => v.verify(bearer(secret(i)), guardFor(`10.0.0.${i}`)));
    const good = v.verify(bearer(SECRET, LOOKUP_B), guardFor('192.0.2.1'));
    const results = await Promise.allSettled(flood);
    expect((await good).id).toBe('key_2');
    // Key A has at most 4 checks pending, and waiting checks are served round-robin by key: B's ran
    // after A's running one and at most one waiting one, not after 40.
    expect(order.indexOf('B')).toBeLessThanOrEqual(2);
    expect(order.filter((x) => x === 'A').length).toBeLessThanOrEqual(4);
    const codes = results.map((r) => (r as PromiseRejectedResult).reason.code);
    expect(codes.filter((c) => c === 'service_unavailable').length).toBeGreaterThanOrEqual(36);
    expect(codes.every((c) => c === 'service_unavailable' || c === 'unauthorized')).toBe(true);
  });

  it("a key's failed comparisons come from a bucket: once spent, checks for that key get 503 without bcrypt", async () => {
    const spy = vi.spyOn(bcrypt, 'compare');
    const v = new KeyVerifier(storeOfTwo(), { keyFailureBurst: 3, keyFailuresPerSec: 0.001 });
    for (const c of 'xyz') await expect(v.verify(bearer(other(c)))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(v.verify(bearer(other('q')))).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(spy).toHaveBeenCalledTimes(3);
    expect((await v.verify(bearer(SECRET, LOOKUP_B))).id).toBe('key_2'); // another key has its own bucket
  });

  it("once a key's budget is spent, its checks are refused without reading the database", async () => {
    const store = storeOfTwo();
    const v = new KeyVerifier(store, { keyFailureBurst: 2, keyFailuresPerSec: 0.001 });
    for (const c of 'xy') await expect(v.verify(bearer(other(c)))).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(v.verify(bearer(other('z')))).rejects.toMatchObject({ code: 'service_unavailable' });
    const reads = (store.keyForAuth as unknown as { mock: { calls: unknown[] } }).mock.calls.length;
    for (let i = 0; i < 5; i++) await expect(v.verify(bearer(other('q')))).rejects.toMatchObject({ code: 'service_unavailable' });
    expect((store.keyForAuth as unknown as { mock: { calls: unknown[] } }).mock.calls.length).toBe(reads);
    expect((await v.verify(bearer(SECRET, LOOKUP_B))).id).toBe('key_2'); // another key is not affected
  });

  it('one client may have only two checks pending', async () => {
    const v = new KeyVerifier(storeOfTwo(), { perKeyPending: 100, keyFailureBurst: 100 });
    const g = guardFor('198.51.100.9');
    const results = await Promise.allSettled('abcdef'.split('').map((c) => v.verify(bearer(other(c)), g)));
    const codes = results.map((r) => (r as PromiseRejectedResult).reason.code);
    expect(codes.filter((c) => c === 'unauthorized')).toHaveLength(2);
    expect(codes.filter((c) => c === 'service_unavailable')).toHaveLength(4);
  });

  it('counts a failure before bcrypt runs and gives it back when the secret was right', async () => {
    const events: string[] = [];
    const real = bcrypt.compare.bind(bcrypt) as (a: string, b: string) => Promise<boolean>;
    vi.spyOn(bcrypt, 'compare').mockImplementation((async (a: string, b: string) => {
      events.push('bcrypt');
      return real(a, b);
    }) as never);
    const guard = { client: 'c', before: async () => void events.push('count'), succeeded: async () => void events.push('refund') };
    const v = new KeyVerifier(storeOfTwo());
    await expect(v.verify(bearer(other('w')), guard)).rejects.toMatchObject({ code: 'unauthorized' });
    await v.verify(bearer(SECRET), guard);
    expect(events).toEqual(['count', 'bcrypt', 'count', 'bcrypt', 'refund']);
  });
});

describe('KeyVerifier counting (issue 10 #1)', () => {
  it('40 concurrent identical right secrets share one bcrypt and are counted once, not 40 times', async () => {
    let counted = 0;
    let refunded = 0;
    const guard = {
      client: 'c',
      before: async () => {
        if (++counted > 20) throw Object.assign(new Error('limited'), { code: 'rate_limited' });
      },
      succeeded: async () => void refunded++,
    };
    const spy = vi.spyOn(bcrypt, 'compare');
    const v = new KeyVerifier(fakeStore(() => row).store);
    const results = await Promise.all(Array.from({ length: 40 }, () => v.verify(bearer(SECRET), guard)));
    expect(results.every((r) => r.id === 'key_1')).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
    expect([counted, refunded]).toEqual([1, 1]);
  });
});

function guardFor(client: string) {
  return { client, before: async () => {}, succeeded: async () => {} };
}

describe('Gate', () => {
  it('runs queued jobs in order as slots free up', async () => {
    const gate = new Gate(2, 10);
    const order: number[] = [];
    const job = (n: number, ms: number) => gate.run(() => new Promise<number>((r) => setTimeout(() => (order.push(n), r(n)), ms)));
    const out = await Promise.all([job(1, 30), job(2, 10), job(3, 5), job(4, 1)]);
    expect(out).toEqual([1, 2, 3, 4]);
    expect(order[0]).toBe(2);
    expect(order.sort()).toEqual([1, 2, 3, 4]);
  });
});
