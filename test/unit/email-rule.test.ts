// The email rule (src/contract/email.ts, normEmail in src/core/users.ts): a superset of the former
// ASCII rule, and a normal form that is idempotent and joins the spellings of one address.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { asciiDomain, isValidEmail } from '../../src/contract/email.js';
import { signupBody } from '../../src/contract/schemas.js';
import { normEmail } from '../../src/core/users.js';

describe('email rule', () => {
  it('accepts every address the former rule (zod z.email()) accepted', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (e) => !z.email().safeParse(e).success || isValidEmail(e)),
      { numRuns: 5000 },
    );
  });

  it('accepts IDN domains and UTF-8 local parts; refuses non-addresses', () => {
    for (const ok of ['user@müller.de', 'user@xn--mller-kva.de', 'zoë@example.de', '用户@例子.广告', 'a@пример.рф', "o'brien@x.ie"]) {
      expect(isValidEmail(ok), ok).toBe(true);
    }
    for (const bad of [
      'zoë@',
      'a b@x.de',
      '😀@x.com',
      'a\u200b@x.com',
      'x@localhost',
      '"q"@x.com',
      'a..b@x.com',
      '.a@x.com',
      'a@1.2.3.4',
    ]) {
      expect(isValidEmail(bad), bad).toBe(false);
    }
  });

  it('stores NFC: a decomposed address parses to its composed form', () => {
    const parsed = signupBody.parse({ email: ' zoe\u0308@example.de ', password: 'long enough' });
    expect(parsed.email).toBe('zoë@example.de');
  });

  it('one address, many spellings: one normal form (Unicode domain, lower case, NFC)', () => {
    const forms = [
      'user@müller.de',
      'USER@MÜLLER.DE',
      'user@xn--mller-kva.de',
      'User@XN--MLLER-KVA.DE',
      'user@mu\u0308ller.de',
      ' user@müller.de ',
    ];
    expect(new Set(forms.map(normEmail))).toEqual(new Set(['user@müller.de']));
    expect(normEmail('ZOË@Example.DE')).toBe('zoë@example.de');
    expect(normEmail('zoe@example.de')).not.toBe(normEmail('zoë@example.de'));
    expect(asciiDomain('Müller.DE')).toBe('xn--mller-kva.de');
  });

  it('the normal form is idempotent and keeps valid addresses valid', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (e) => {
        const n = normEmail(e);
        return normEmail(n) === n && (!isValidEmail(e) || isValidEmail(n));
      }),
      { numRuns: 3000 },
    );
  });
});
