// Prefixed, time-sortable identifiers (monotonic ULIDs): `prj_01J…`, never sequential integers.
import { encodeTime, monotonicFactory } from 'ulidx';
import { pooledPrng, randomPooled } from './crypto.js';

const ulid = monotonicFactory(pooledPrng);

export type IdPrefix = 'usr' | 'prj' | 'key' | 'ent';

/** A new id such as `ent_01JD3…`; later calls sort after earlier ones. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

const TIME_MAX = 2 ** 48 - 1;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const SEQ_SPAN = 32 ** 6;

/**
 * An id whose time part is `at` rather than now: an imported entry's, so that the newest-first lists
 * and exports (ordered by id) order imported rows by their kept `createdAt`, among themselves and beside
 * live sign-ups. The first 6 of the 16 random characters are `seq` (the record's line in its file), so
 * rows of the same millisecond keep the file's order; the other 10 (50 bits) stay random. Times before
 * 1970 count as 1970.
 */
/**
 * The smallest id of its kind whose time part is `at` (every id made at `at` or later sorts at or above
 * it): turns a time range into a range of the id indexes.
 */
export const idFloor = (prefix: IdPrefix, at: number) => `${prefix}_${encodeTime(Math.min(Math.max(0, Math.floor(at)), TIME_MAX), 10)}`;

export function idAt(prefix: IdPrefix, at: number, seq: number): string {
  const t = Math.min(Math.max(0, Math.floor(at)), TIME_MAX);
  let random = '';
  for (const b of randomPooled(10)) random += CROCKFORD[b & 31];
  return `${prefix}_${encodeTime(t, 10)}${encodeTime(seq % SEQ_SPAN, 6)}${random}`;
}
