// Small cryptographic helpers. Secrets are random bytes from the OS CSPRNG, encoded base64url.
import crypto, { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// Random bytes are drawn from the OS CSPRNG 4 KiB at a time and handed out once each: a join needs
// ~60 of them (ids, status token, referral code) and one call per value cost ~6% of the join path.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

/** `n` (≤ 4096) fresh random bytes from the pool, never handed out twice (a full pool is replaced, never refilled in place). */
export function randomPooled(n: number): Buffer {
  if (poolAt + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  const out = pool.subarray(poolAt, poolAt + n);
  poolAt += n;
  return out;
}

/** A random number in [0, 1] from one pooled byte: the PRNG shape ulidx's factories take (their own default). */
export const pooledPrng = (): number => randomPooled(1)[0]! / 0xff;

/** `bytes` random bytes as base64url (32 bytes → 43 chars, 256 bits). */
export function randomToken(bytes = 32): string {
  return randomPooled(bytes).toString('base64url');
}

// crypto.hash (Node 20.12+): one call, no Hash object; about 0.6 µs against 1.3–1.8 µs for
// createHash().update().digest() on the bench machine. A join hashes twice (its key's cache lookup and
// its status token). Older Node 20 releases (package.json accepts >= 20) keep the Hash object.
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

/** Hex SHA-256: what we store for session tokens (high-entropy secrets need no slow hash). */
export function sha256(value: string): string {
  return oneShot ? oneShot('sha256', value, 'hex') : createHash('sha256').update(value).digest('hex');
}

/** Constant-time string equality for equal-length secrets. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * HMAC-SHA256 (RFC 2104) under one key, as a function of short messages → base64url: the padded key
 * blocks are made once and each call is two one-shot hashes (crypto.hash) over reused buffers. A join
 * derives its status token with it: createHmac's native object per call cost ~6 % of the join path in
 * a side-by-side bench (docs/performance.md, round eighteen), against 1.6 µs here. Messages longer
 * than 256 bytes (never a join's) fall back to createHmac.
 */
export function hmacSha256(key: string): (message: string) => string {
  const hash = oneShot;
  if (!hash) return (message) => crypto.createHmac('sha256', key).update(message).digest('base64url');
  let k = Buffer.from(key, 'utf8');
  if (k.length > 64) k = Buffer.from(hash('sha256', k, 'hex'), 'hex');
  const inner = Buffer.alloc(64 + 256);
  const outer = Buffer.alloc(64 + 32);
  inner.fill(0x36, 0, 64);
  outer.fill(0x5c, 0, 64);
  for (let i = 0; i < k.length; i++) {
    inner[i]! ^= k[i]!;
    outer[i]! ^= k[i]!;
  }
  return (message) => {
    if (Buffer.byteLength(message, 'utf8') > 256) return crypto.createHmac('sha256', key).update(message).digest('base64url');
    const n = inner.write(message, 64, 'utf8');
    outer.write(hash('sha256', inner.subarray(0, 64 + n), 'hex'), 64, 'hex');
    return hash('sha256', outer, 'base64url');
  };
}
