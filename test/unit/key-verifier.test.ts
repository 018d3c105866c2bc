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
    const v = new KeyVerifier(fakeStore(() => row).store, { maxConcurrent: 1, maxQueued: 2 });
    const letters = 'abcdefgh'.split('');
    const results = await Promise.allSettled(letters.map((c) => v.verify(bearer(other(c)))));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(peak).toBe(1);
    expect(spy).toHaveBeenCalledTimes(3); // one running + two waiting; the other five refused
  });
});

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
