// hmacSha256 (src/core/crypto.ts): the join's status token is an HMAC-SHA256 computed with two one-shot
// hashes instead of a createHmac object; it must be exactly createHmac's (tokens made by either check
// against the same stored hash).
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256 } from '../../src/core/crypto.js';

describe('hmacSha256', () => {
  it('equals createHmac for keys of every length and messages short, long, empty and non-ASCII', () => {
    const keys = ['', 'k', randomBytes(32).toString('hex'), 'x'.repeat(64), 'é'.repeat(40), randomBytes(90).toString('base64')];
    const messages = [
      '',
      'ent_01M8DYDC72Y6PM1VAWJY8ZR23R',
      'é✓ zoë',
      'm'.repeat(191),
      'm'.repeat(192),
      'm'.repeat(256),
      'n'.repeat(5000),
      'é'.repeat(128),
      'é'.repeat(129),
      'é'.repeat(200),
      '✓'.repeat(86),
    ];
    for (const key of keys) {
      const mac = hmacSha256(key);
      for (const m of messages) {
        expect(mac(m), `${key.length}/${m.length}`).toBe(createHmac('sha256', key).update(m).digest('base64url'));
        expect(mac(m)).toBe(mac(m)); // the reused buffers carry nothing from one call to the next
      }
    }
  });
});
