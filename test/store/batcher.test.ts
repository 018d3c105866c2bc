// The shared group-commit queue (src/db/batcher.ts), on its own: batching, ordering, isolation of a
// failing item, the batch size cap, and drain.
import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/db/batcher.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('Batcher', () => {
  it('writes the items added in one event-loop turn as one batch, results in order', async () => {
    const batches: number[][] = [];
    const b = new Batcher<number, string>((batch) => {
      batches.push([...batch]);
      return batch.map((n) => `r${n}`);
    });
    const results = await Promise.all([b.add(1), b.add(2), b.add(3)]);
    expect(results).toEqual(['r1', 'r2', 'r3']);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('settles a caller only after its batch was written', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let written = false;
    const b = new Batcher<number, number>(async (batch) => {
      await gate;
      written = true;
      return batch;
    });
    let settled = false;
    const p = b.add(7).then((v) => {
      settled = true;
      expect(written).toBe(true);
      return v;
    });
    await tick();
    await tick();
    expect(settled).toBe(false);
    release();
    expect(await p).toBe(7);
  });

  it('groups what arrives while a batch is in flight into the next batch; one batch at a time', async () => {
    const batches: number[][] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const releases: (() => void)[] = [];
    const b = new Batcher<number, number>(async (batch) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      batches.push([...batch]);
      await new Promise<void>((r) => releases.push(r));
      inFlight--;
      return batch;
    });
    const first = b.add(1);
    await tick();
    expect(batches).toEqual([[1]]);
    const later = [b.add(2), b.add(3)];
    await tick();
    const more = b.add(4); // another turn, still while batch 1 is in flight
    await tick();
    expect(batches).toEqual([[1]]);
    releases.shift()!();
    await first;
    while (releases.length === 0) await tick();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    releases.shift()!();
    expect(await Promise.all([...later, more])).toEqual([2, 3, 4]);
    expect(maxInFlight).toBe(1);
  });

  it('caps a batch at maxBatch items, keeping the order', async () => {
    const batches: number[][] = [];
    const b = new Batcher<number, number>(
      (batch) => {
        batches.push([...batch]);
        return batch.map((n) => n * 10);
      },
      { maxBatch: 2 },
    );
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => b.add(n)))).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('a failing item fails only its own caller: the batch is retried item by item', async () => {
    const calls: number[][] = [];
    const b = new Batcher<number, number>((batch) => {
      calls.push([...batch]);
      if (batch.includes(2)) throw new Error('bad item 2');
      return batch;
    });
    const results = await Promise.allSettled([b.add(1), b.add(2), b.add(3)]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 1 });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { message: 'bad item 2' } });
    expect(results[2]).toEqual({ status: 'fulfilled', value: 3 });
    expect(calls).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('a fatal error (the database is down) fails the whole batch at once, nothing retried', async () => {
    const calls: number[][] = [];
    const down = new Error('database unavailable');
    const b = new Batcher<number, number>(
      (batch) => {
        calls.push([...batch]);
        throw new Error('connection refused');
      },
      { fatal: (err) => ((err as Error).message === 'connection refused' ? down : undefined) },
    );
    const results = await Promise.allSettled([b.add(1), b.add(2), b.add(3)]);
    expect(results.map((r) => (r.status === 'rejected' ? r.reason : r))).toEqual([down, down, down]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('a writer returning the wrong number of results rejects the callers instead of misrouting', async () => {
    const b = new Batcher<number, number>(() => [1]);
    const results = await Promise.allSettled([b.add(1), b.add(2)]);
    // Alone, each item gets exactly one result back, so the retry succeeds.
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const broken = new Batcher<number, number>(() => []);
    await expect(broken.add(1)).rejects.toThrow(/0 results for 1 items/);
  });

  it('drain waits for everything queued and in flight; the batcher works again afterwards', async () => {
    const done: number[] = [];
    const b = new Batcher<number, number>(
      async (batch) => {
        await new Promise((r) => setTimeout(r, 20));
        done.push(...batch);
        return batch;
      },
      { maxBatch: 1 },
    );
    void b.add(1);
    void b.add(2);
    expect(b.pending).toBe(2);
    await b.drain();
    expect(done).toEqual([1, 2]);
    expect(b.pending).toBe(0);
    await b.drain(); // nothing queued: resolves at once
    expect(await b.add(3)).toBe(3);
  });

  it('refuses a maxBatch below 1, and a negative lingerMs', () => {
    expect(() => new Batcher<number, number>((b) => b, { maxBatch: 0 })).toThrow(RangeError);
    expect(() => new Batcher<number, number>((b) => b, { lingerMs: -1 })).toThrow(RangeError);
  });

  describe('lingerMs', () => {
    // One item per event-loop turn: what a burst of new connections looks like to the join route, as
    // libuv accepts one connection per turn.
    const onePerTurn = async (b: Batcher<number, number>, n: number) => {
      const all: Promise<number>[] = [];
      for (let i = 0; i < n; i++) {
        all.push(b.add(i));
        await tick();
      }
      return Promise.all(all);
    };

    it('keeps a batch open while every turn brings an item: one batch for a burst of turns', async () => {
      const batches: number[][] = [];
      const write = (batch: number[]) => (batches.push([...batch]), batch);
      await onePerTurn(new Batcher<number, number>(write, { lingerMs: 10_000 }), 20);
      expect(batches).toEqual([Array.from({ length: 20 }, (_, i) => i)]);
      // Without it, every turn's item is a batch of its own.
      batches.length = 0;
      await onePerTurn(new Batcher<number, number>(write), 5);
      expect(batches).toEqual([[0], [1], [2], [3], [4]]);
    });

    it('writes a lone item after one quiet turn, however long lingerMs is', async () => {
      const batches: number[][] = [];
      const b = new Batcher<number, number>((batch) => (batches.push([...batch]), batch), { lingerMs: 10_000 });
      const p = b.add(1);
      await tick(); // the turn that brought it
      await tick(); // a turn that brought nothing: written
      expect(batches).toEqual([[1]]);
      expect(await p).toBe(1);
    });

    it('stops lingering at maxBatch and after lingerMs, even while items keep coming', async () => {
      const batches: number[][] = [];
      const write = (batch: number[]) => (batches.push([...batch]), batch);
      await onePerTurn(new Batcher<number, number>(write, { lingerMs: 10_000, maxBatch: 4 }), 10);
      expect(batches.map((b) => b.length)).toEqual([4, 4, 2]);
      batches.length = 0;
      const b = new Batcher<number, number>(write, { lingerMs: 5 });
      const all: Promise<number>[] = [];
      const end = performance.now() + 60;
      for (let i = 0; performance.now() < end; i++) {
        all.push(b.add(i));
        await tick();
      }
      await Promise.all(all);
      expect(batches.length).toBeGreaterThan(1); // an endless stream is still written, batch by batch
      expect(batches.flat()).toEqual(Array.from({ length: all.length }, (_, i) => i));
    });
  });

  it('with overlap, starts writing the next batch before settling the callers of the one written, one batch in flight', async () => {
    const log: string[] = [];
    const releases: (() => void)[] = [];
    let inFlight = 0;
    const b = new Batcher<number, number>(
      async (batch) => {
        log.push(`start ${batch.join(',')}`); // the synchronous part: what a PostgreSQL writer sends
        expect(++inFlight).toBe(1);
        await new Promise<void>((r) => releases.push(r));
        inFlight--;
        log.push(`end ${batch.join(',')}`);
        return batch.map((n) => n * 10);
      },
      { overlap: true },
    );
    const first = b.add(1).then((v) => log.push(`settled 1 = ${v}`));
    await tick();
    const second = b.add(2).then((v) => log.push(`settled 2 = ${v}`)); // queued while batch 1 is in flight
    await tick();
    releases.shift()!();
    await tick();
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'settled 1 = 10']);
    releases.shift()!();
    await Promise.all([first, second]);
    expect(log.slice(4)).toEqual(['end 2', 'settled 2 = 20']);
    // Without overlap the callers of a batch are settled before the next one starts (SQLite's order).
    const plain: string[] = [];
    const rel: (() => void)[] = [];
    const c = new Batcher<number, number>(async (batch) => {
      plain.push(`start ${batch.join(',')}`);
      await new Promise<void>((r) => rel.push(r));
      return batch;
    });
    const one = c.add(1).then(() => plain.push('settled 1'));
    await tick();
    const two = c.add(2).then(() => plain.push('settled 2'));
    await tick();
    rel.shift()!();
    await tick();
    expect(plain).toEqual(['start 1', 'settled 1', 'start 2']);
    rel.shift()!();
    await Promise.all([one, two]);
  });

  it('with overlap, a failing batch is still retried item by item, each settled in order', async () => {
    const b = new Batcher<number, number>(
      (batch) => {
        if (batch.length > 1 || batch[0] === 2) throw new Error(`bad ${batch.join(',')}`);
        return batch;
      },
      { overlap: true },
    );
    const r = await Promise.allSettled([b.add(1), b.add(2), b.add(3)]);
    expect(r.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((r[1] as PromiseRejectedResult).reason.message).toBe('bad 2');
  });
});
