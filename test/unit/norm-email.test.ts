// normEmail's fast path for plain ASCII domains gives exactly what the WHATWG domain conversions give.
import { domainToASCII, domainToUnicode } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normEmail } from '../../src/core/users.js';

/** normEmail without its fast path: the conversions for every domain. */
function reference(email: string): string {
  const e = email.trim().normalize('NFC');
  const at = e.lastIndexOf('@');
  if (at < 0) return e.toLowerCase();
  const domain = e.slice(at + 1);
  const ascii = domainToASCII(domain);
  const unicode = ascii ? domainToUnicode(ascii) : '';
  return `${e.slice(0, at).toLowerCase()}@${(unicode || domain.toLowerCase()).normalize('NFC')}`;
}

describe('normEmail', () => {
  it.each([
    ['Ann.Lee@Example.COM', 'ann.lee@example.com'],
    ['x@mail.Example.co.uk', 'x@mail.example.co.uk'],
    ['x@a-b--c.io', 'x@a-b--c.io'],
    ['x@xn--mller-kva.de', 'x@müller.de'],
    ['x@XN--MLLER-KVA.DE', 'x@müller.de'],
    ['x@MÜLLER.de', 'x@müller.de'],
    ['x@127.1', 'x@127.0.0.1'],
    ['x@localhost', 'x@localhost'],
  ])('%s → %s', (email, want) => {
    expect(normEmail(email)).toBe(want);
    expect(normEmail(email)).toBe(reference(email));
  });

  it('agrees with the conversions on 20,000 random ASCII domains (numbers, hyphens, punycode, dots)', () => {
    const parts = ['a', 'Z', 'xn--', 'xn--mller-kva', '0', '9', '0x', '-', '.', '..', 'com', 'B2', 'q-', '1e3', 'ff'];
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      let d = '';
      for (let j = 1 + rnd(6); j > 0; j--) d += parts[rnd(parts.length)];
      const email = `Some.One@${d}`;
      expect(normEmail(email), email).toBe(reference(email));
    }
  });
});
