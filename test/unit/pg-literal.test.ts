// literal() (src/db/pg/named.ts) inlines a join batch's values into its simple queries: it must write
// exactly what pg.escapeLiteral writes, for any string (quotes, backslashes, both, none, any Unicode).
// That the text reads back as given from PostgreSQL is checked in test/pg/named.test.ts.
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { literal } from '../../src/db/pg/named.js';

describe('literal', () => {
  it('writes what pg.escapeLiteral writes', () => {
    for (const s of ['', "'", '\\', "\\'", "''\\\\", "o'brien", 'back\\slash', " E'x'", 'naïve ☃ 😀', '\u0001\n\t'])
      expect(literal(s)).toBe(pg.escapeLiteral(s));
    const tricky = fc.string({ unit: fc.constantFrom("'", '\\', 'a', 'E', ' ', '"', '😀', '\n') });
    fc.assert(
      fc.property(fc.oneof(tricky, fc.string({ unit: 'grapheme' }), fc.string()), (s) => {
        expect(literal(s)).toBe(pg.escapeLiteral(s));
      }),
      { numRuns: 2000 },
    );
  });
});
