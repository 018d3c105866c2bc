// Prefixed, time-sortable identifiers (monotonic ULIDs): `prj_01J…`, never sequential integers.
import { monotonicFactory } from 'ulidx';
import { pooledPrng } from './crypto.js';

const ulid = monotonicFactory(pooledPrng);

export type IdPrefix = 'usr' | 'prj' | 'key' | 'ent';

/** A new id such as `ent_01JD3…`; later calls sort after earlier ones. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
