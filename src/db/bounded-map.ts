// A cache map bounded by the total size of what it holds, not only by how many entries. A project's
// row carries its settings (up to the 256 KiB a settings PUT may send), so 10,000 cached projects could
// hold gigabytes; a count alone bounds nothing. When either bound is passed, the oldest entries go
// first (insertion order: a hit does not refresh, which would cost the join path a delete and a set).

/** About what a row costs in memory: its strings' lengths, plus a fixed part for the object. */
export function rowWeight(row: object | undefined): number {
  let n = 256;
  if (row) for (const v of Object.values(row)) if (typeof v === 'string') n += v.length;
  return n;
}

/** The bytes (about) each of the settings and slug/key caches may hold: 32 MiB. */
export const CACHE_WEIGHT = 32 * 1024 * 1024;

export class BoundedMap<K, V> {
  private readonly map = new Map<K, { value: V; weight: number }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
    private readonly weigh: (key: K, value: V) => number,
  ) {}

  get size() {
    return this.map.size;
  }

  /** The sum of the weights held (at most maxWeight). */
  get weight() {
    return this.total;
  }

  get(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  set(key: K, value: V): this {
    this.delete(key);
    const weight = this.weigh(key, value);
    if (weight > this.maxWeight) return this; // would push out everything else: not kept
    this.map.set(key, { value, weight });
    this.total += weight;
    for (const [k, e] of this.map) {
      if (this.map.size <= this.maxEntries && this.total <= this.maxWeight) break;
      this.map.delete(k);
      this.total -= e.weight;
    }
    return this;
  }

  delete(key: K): boolean {
    const e = this.map.get(key);
    if (!e) return false;
    this.map.delete(key);
    this.total -= e.weight;
    return true;
  }

  clear() {
    this.map.clear();
    this.total = 0;
  }
}
