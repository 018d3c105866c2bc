// Shared by the sign-up surface tests: solving proof-of-work challenges as a browser would, and plain
// form posts that do not follow redirects.
import { createHash } from 'node:crypto';

export interface Challenge {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

/** Finds n with SHA-256(salt + n) = challenge and returns the base64 `altcha` payload. */
export function solve(c: Challenge): string {
  for (let n = 0; n <= c.maxnumber; n++) {
    if (
      createHash('sha256')
        .update(c.salt + n)
        .digest('hex') === c.challenge
    ) {
      return Buffer.from(
        JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature }),
      ).toString('base64');
    }
  }
  throw new Error('no solution');
}

/** POSTs an urlencoded form without following the redirect. */
export async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const r = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: r.status, location: r.headers.get('location'), text: await r.text(), headers: r.headers };
}
