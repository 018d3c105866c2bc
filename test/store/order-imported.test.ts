// The reorder at the end of an import whose file is not in date order (LifecycleStore.orderImported), on
// each database, large enough to take several transactions of moves on SQLite (src/db/sqlite/reorder.ts)
// and several statements on PostgreSQL (a million rows as one UPDATE ran past the statement timeout).
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from './adapters.js';
import { entry, projectWithKeyIn } from './conformance.js';

const BATCH = 15_000;
const N = 3 * BATCH;
const T0 = Date.UTC(2024, 0, 1);

describe.each(ADAPTERS)('an import newest first, reordered on $name', (adapter) => {
  it('leaves every row in date order, with the ordinals the import took, each once', async () => {
    const { store, dispose } = await adapter.open();
    try {
      const { p, k } = await projectWithKeyIn(store);
      await store.insertEntry(entry(p.id), k.id); // on the list before the import
      const rows = Array.from({ length: N }, (_, j) => entry(p.id, { createdAt: T0 + (N - j) * 1000 }));
      const ranges: [number, number][] = [];
      for (let b = 0; b < N; b += BATCH) {
        // Each batch numbered in date order by itself, as src/core/import/run.ts writes them.
        const { inserted, first } = await store.importEntries(rows.slice(b, b + BATCH).sort((x, y) => x.createdAt - y.createdAt));
        ranges.push([first, first + inserted - 1]);
      }
      expect(ranges).toEqual([
        [2, BATCH + 1],
        [BATCH + 2, 2 * BATCH + 1],
        [2 * BATCH + 2, N + 1],
      ]);
      // The middle batch is in its place already: the two others trade places.
      expect(await store.lifecycle.orderImported(p.id, ranges)).toBe(2 * BATCH);

      const all: { ordinal: number; createdAt: number }[] = [];
      for (let before: string | null = null; ; ) {
        const page = await store.entriesBefore(p.id, before, 10_000);
        if (!page.length) break;
        all.push(...page.map((e) => ({ ordinal: Number(e.ordinal), createdAt: Number(e.createdAt) })));
        before = page[page.length - 1]!.id;
      }
      all.sort((a, b) => a.ordinal - b.ordinal);
      expect(all.map((e) => e.ordinal)).toEqual(Array.from({ length: N + 1 }, (_, i) => i + 1));
      for (let i = 2; i < all.length; i++) expect(all[i]!.createdAt).toBeGreaterThan(all[i - 1]!.createdAt);
    } finally {
      await dispose();
    }
  }, 120_000);
});
