// The export's hand-written entry JSON must equal JSON.stringify(toEntry(row)) byte for byte.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toEntry } from '../../src/core/serialize.js';
import type { EntryRow } from '../../src/db/store.js';
import { entryJson, iso } from '../../src/server/export.js';

const text = fc.string({ unit: 'binary', maxLength: 40 });
const row = fc.record({
  id: text,
  projectId: text,
  email: text,
  emailNorm: text,
  name: fc.option(text),
  source: text,
  metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 3 })).map((m) => JSON.stringify(m)),
  ip: fc.option(text),
  country: fc.option(text),
  userAgent: fc.option(text),
  createdAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  updatedAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  deletedAt: fc.constant(null),
  status: fc.constantFrom('pending', 'waiting', 'invited', 'accepted'),
  position: fc.option(fc.integer({ min: 1, max: 2_000_000 })),
  ordinal: fc.nat(),
  k: fc.integer(),
  referralCode: fc.option(text),
  referredBy: fc.option(text),
  referrals: fc.nat(1000),
  statusTokenHash: fc.constant(null),
  confirmTokenHash: fc.constant(null),
  confirmSentAt: fc.constant(null),
  confirmResentAt: fc.constant(null),
  confirmedAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 })),
  invitedAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 })),
  acceptedAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 })),
  inviteCodeHash: fc.constant(null),
  inviteExpiresAt: fc.constant(null),
}) as fc.Arbitrary<EntryRow & { position: number | null }>;

describe('entryJson', () => {
  it('equals JSON.stringify(toEntry(row))', () => {
    fc.assert(
      fc.property(row, (r) => {
        expect(entryJson(r)).toBe(JSON.stringify(toEntry(r, r.position)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('iso', () => {
  it('equals Date#toISOString for any epoch ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 }), (ms) => {
        expect(iso(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
    for (const ms of [0, 86_399_999, 86_400_000, 1_795_291_089_410, 253_402_300_799_999]) expect(iso(ms)).toBe(new Date(ms).toISOString());
  });
});
