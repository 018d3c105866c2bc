// Slug and key lookups of the join path, cached per instance and kept exact across instances.
//
// Every change to projects, and to the api_keys columns the key check reads, bumps one counter in the
// same transaction (migrations/pg/0007_perf.sql). A lookup first reads that counter with a query issued
// after the lookup was asked for; the requests of one event-loop turn share that one read. A cached row
// is used only when it was read at the same version, so anything committed before a request arrived
// (a revocation, a deleted or restored project, new settings, by any instance) is seen by that request:
// one small read per turn instead of two row reads per request.

import { BoundedMap, CACHE_WEIGHT, rowWeight } from '../bounded-map.js';

const MAX_ROWS = 10_000; // lookups remembered per kind, and at most CACHE_WEIGHT of them (the oldest go first)

interface Cached<T> {
  version: string;
  row: T | undefined;
}

export class CatalogCache {
  private next: Promise<string> | null = null;
  private readonly maps = new Map<string, BoundedMap<string, Cached<unknown>>>();

  constructor(private readonly readVersion: () => Promise<string>) {}

  /** The catalog version, from a read sent after this call (shared with the other calls of this turn). */
  private version(): Promise<string> {
    this.next ??= new Promise<void>((r) => setImmediate(r)).then(() => {
      this.next = null; // calls from now on need a read sent after them
      return this.readVersion();
    });
    return this.next;
  }

  /** `load()`'s row for `key` of `kind`, or the copy read at the current version. */
  async get<T extends object>(kind: string, key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const version = await this.version();
    let map = this.maps.get(kind) as BoundedMap<string, Cached<T>> | undefined;
    if (!map) {
      map = new BoundedMap<string, Cached<T>>(MAX_ROWS, CACHE_WEIGHT, (_k, c) => rowWeight(c.row));
      this.maps.set(kind, map as BoundedMap<string, Cached<unknown>>);
    }
    const hit = map.get(key);
    if (hit?.version === version) return hit.row && { ...hit.row };
    // Read after the version: the row is at least as new as `version` (a newer one bumped it again).
    const row = await load();
    map.set(key, { version, row });
    return row && { ...row };
  }
}
