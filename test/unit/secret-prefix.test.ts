// Tokens and codes begin with the millisecond they were made (src/core/lifecycle.ts), so their index
// keys grow with time; secrets made before the prefix are still found by their bare SHA-256.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { newReferralCode, newSecret, secretHash, timePrefix } from '../../src/core/lifecycle.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('time-prefixed secrets and codes', () => {
  it('a secret is the 9-character time prefix and 256 random bits; its hash keeps the prefix', () => {
    const before = timePrefix();
    const s = newSecret();
    expect(s).toMatch(/^[0-9a-z]{9}[\w-]{43}$/);
    expect(s.slice(0, 9) >= before).toBe(true);
    expect(secretHash(s)).toBe(s.slice(0, 9) + sha256(s));
    expect(new Set(Array.from({ length: 1000 }, newSecret)).size).toBe(1000);
  });

  it('a secret of the earlier shape (43 characters, or anything else) is looked up by its bare SHA-256', () => {
    const legacy = 'k1X2y3Z4a5B6c7D8e9F0g1H2i3J4k5L6m7N8o9P0q1R';
    expect(legacy).toHaveLength(43);
    expect(secretHash(legacy)).toBe(sha256(legacy));
    expect(secretHash('t-ent_01')).toBe(sha256('t-ent_01'));
    // The prefix's alphabet is digits and lower case only: an upper-case start is not a prefix.
    const notPrefixed = `ABCDEFGHI${'a'.repeat(43)}`;
    expect(secretHash(notPrefixed)).toBe(sha256(notPrefixed));
  });

  it('a referral code is the time prefix and 8 base64url characters (48 bits)', () => {
    const c = newReferralCode();
    expect(c).toMatch(/^[0-9a-z]{9}[\w-]{8}$/);
    expect(new Set(Array.from({ length: 1000 }, newReferralCode)).size).toBe(1000);
  });

  it('prefixes have a fixed width and sort as the times do, as text and in SQLite', () => {
    const times = [0, 1, 35, 36, 1_700_000_000_000, Date.now(), Date.now() + 1, 3_000_000_000_000, 36 ** 9 - 1];
    const prefixes = times.map((t) => timePrefix(t));
    for (const p of prefixes) expect(p).toMatch(/^[0-9a-z]{9}$/);
    expect([...prefixes].sort()).toEqual(prefixes);
    const db = new Database(':memory:');
    const sorted = db
      .prepare(`SELECT value FROM json_each(?) ORDER BY value`)
      .pluck()
      .all(JSON.stringify([...prefixes].reverse()));
    expect(sorted).toEqual(prefixes);
    db.close();
  });

  it('a batch of codes made one after another lands at the end of the index, in order of time', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (code TEXT NOT NULL UNIQUE)');
    const older = Array.from({ length: 200 }, () => timePrefix(Date.now() - 86_400_000) + 'x'.repeat(8));
    for (const [i, c] of older.entries()) db.prepare('INSERT INTO t VALUES (?)').run(c.slice(0, -3) + String(i).padStart(3, '0'));
    const fresh = Array.from({ length: 50 }, newReferralCode);
    for (const c of fresh) db.prepare('INSERT INTO t VALUES (?)').run(c);
    const last = db.prepare('SELECT code FROM t ORDER BY code DESC LIMIT 50').pluck().all();
    expect(new Set(last)).toEqual(new Set(fresh));
    db.close();
  });
});
