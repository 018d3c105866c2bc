// The proof-of-work solver shared by widget.js and the hosted page (which inlines its source): finds n
// ≤ maxnumber with SHA-256(salt + n) = challenge (ALTCHA v1). SHA-256 is computed here in plain
// JavaScript (after the public-domain compact implementation by Geraint Luff), not with WebCrypto:
// crypto.subtle exists only in secure contexts (an http:// page has none), and one await per attempt
// made it ~10x slower than a synchronous loop. Self-contained: it is stringified into a Worker.
export function solveSync(c: { salt: string; challenge: string; maxnumber: number }): number {
  const rr = (v: number, n: number) => (v >>> n) | (v << (32 - n));
  const H: number[] = [];
  const K: number[] = [];
  const composite: Record<number, number> = {};
  for (let cand = 2, found = 0; found < 64; cand++) {
    if (!composite[cand]) {
      for (let i = 0; i < 313; i += cand) composite[i] = cand;
      H[found] = (cand ** 0.5 * 4294967296) | 0;
      K[found++] = (cand ** (1 / 3) * 4294967296) | 0;
    }
  }
  const hex = (s: string): string => {
    const bits = s.length * 8;
    s += '\x80';
    while ((s.length % 64) - 56) s += '\x00';
    const w: number[] = [];
    for (let i = 0; i < s.length; i++) w[i >> 2]! |= s.charCodeAt(i) << (((3 - i) % 4) * 8);
    w[w.length] = (bits / 4294967296) | 0;
    w[w.length] = bits;
    const h = H.slice(0, 8);
    const m = new Array<number>(64);
    for (let j = 0; j < w.length; j += 16) {
      for (let i = 0; i < 16; i++) m[i] = w[j + i]! | 0;
      for (let i = 16; i < 64; i++) {
        const w15 = m[i - 15]!;
        const w2 = m[i - 2]!;
        m[i] = (m[i - 16]! + (rr(w15, 7) ^ rr(w15, 18) ^ (w15 >>> 3)) + m[i - 7]! + (rr(w2, 17) ^ rr(w2, 19) ^ (w2 >>> 10))) | 0;
      }
      let [a, b, c, d, e, f, g, k] = h as [number, number, number, number, number, number, number, number];
      for (let i = 0; i < 64; i++) {
        const t1 = (k + (rr(e, 6) ^ rr(e, 11) ^ rr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + m[i]!) | 0;
        const t2 = ((rr(a, 2) ^ rr(a, 13) ^ rr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        k = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
      }
      h[0] = (h[0]! + a) | 0;
      h[1] = (h[1]! + b) | 0;
      h[2] = (h[2]! + c) | 0;
      h[3] = (h[3]! + d) | 0;
      h[4] = (h[4]! + e) | 0;
      h[5] = (h[5]! + f) | 0;
      h[6] = (h[6]! + g) | 0;
      h[7] = (h[7]! + k) | 0;
    }
    let out = '';
    for (let i = 0; i < 8; i++) for (let j = 3; j >= 0; j--) out += ((h[i]! >> (j * 8)) & 255).toString(16).padStart(2, '0');
    return out;
  };
  for (let n = 0; n <= c.maxnumber; n++) if (hex(c.salt + n) === c.challenge) return n;
  return -1;
}
