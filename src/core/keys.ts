// API keys: `wl_<lookup><secret>`. The lookup id finds the row by index; only a bcrypt hash of the
// secret is stored. A successful bcrypt comparison is cached per process (as a SHA-256 of the secret)
// so bcrypt runs once per key, while the row's revoked state is read on every join.
import bcrypt from 'bcrypt';
import type { KeyAuthRow, KeyRow, PageArgs, Store } from '../db/store.js';
import { randomToken, safeEqual, sha256 } from './crypto.js';
import { AppError, notFound } from './errors.js';
import { newId } from './ids.js';

const LOOKUP_LEN = 12; // 9 random bytes, base64url
const SECRET_LEN = 32; // 24 random bytes (192 bits), base64url
const KEY_RE = new RegExp(`^wl_[A-Za-z0-9_-]{${LOOKUP_LEN + SECRET_LEN}}$`);
const PREFIX_LEN = 'wl_'.length + 8;
const KEY_BCRYPT_COST = 10;

/** Splits a presented key into its lookup id and secret; undefined when malformed. */
export function parseKey(value: string): { lookup: string; secret: string } | undefined {
  if (!KEY_RE.test(value)) return undefined;
  return { lookup: value.slice(3, 3 + LOOKUP_LEN), secret: value.slice(3 + LOOKUP_LEN) };
}

/** Creates a key for a project; the full value is returned here and never again. */
export async function createKey(store: Store, projectId: string, name: string): Promise<{ row: KeyRow; key: string }> {
  const lookup = randomToken(9);
  const secret = randomToken(24);
  const key = `wl_${lookup}${secret}`;
  const now = Date.now();
  const row: KeyRow = {
    id: newId('key'),
    projectId,
    name,
    lookup,
    prefix: key.slice(0, PREFIX_LEN),
    secretHash: await bcrypt.hash(secret, KEY_BCRYPT_COST),
    createdAt: now,
    updatedAt: now,
    lastUsedAt: null,
    revokedAt: null,
  };
  await store.insertKey(row);
  return { row, key };
}

export const listKeys = (store: Store, projectId: string, page: PageArgs) => store.listKeys(projectId, page);

export async function getKey(store: Store, projectId: string, keyId: string) {
  const k = await store.keyInProject(projectId, keyId);
  if (!k) throw notFound('API key');
  return k;
}

export async function renameKey(store: Store, projectId: string, keyId: string, name: string) {
  const k = await store.renameKey(projectId, keyId, name, Date.now());
  if (!k) throw notFound('API key');
  return k;
}

export async function revokeKey(store: Store, projectId: string, keyId: string) {
  const k = await store.revokeKey(projectId, keyId, Date.now());
  if (!k) throw notFound('API key');
  return k;
}

const unauthorized = (message: string) =>
  new AppError('unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer realm="waitlist"' });

export interface BcryptGuard {
  before(): Promise<void>;
  failed(): Promise<void>;
}

/** Verifies join keys, caching successful bcrypt comparisons (never the revoked state). */
export class KeyVerifier {
  private readonly verified = new Map<string, string>(); // keyId → sha256(secret)
  private readonly inFlight = new Map<string, Promise<boolean>>(); // `${keyId}:${sha256(secret)}` → comparison
  constructor(
    private readonly store: Store,
    private readonly maxCached = 10_000,
  ) {}

  /**
   * The key row for an `Authorization` header value, or a 401 AppError. `guard` runs before each
   * bcrypt comparison (it may throw, e.g. 429) and `failed` after one that did not match, so a client
   * cannot make the server burn CPU on wrong secrets without limit.
   */
  async verify(authorization: string | undefined, guard?: BcryptGuard): Promise<KeyAuthRow> {
    const m = authorization ? /^Bearer[ ]+(\S+)\s*$/i.exec(authorization) : null;
    if (!m) throw unauthorized('Missing API key: send Authorization: Bearer <key>');
    const parsed = parseKey(m[1]!);
    if (!parsed) throw unauthorized('Invalid API key');
    const row = await this.store.keyForAuth(parsed.lookup);
    if (!row || row.revokedAt !== null) throw unauthorized('Invalid API key');
    const digest = sha256(parsed.secret);
    const cached = this.verified.get(row.id);
    if (cached !== undefined && safeEqual(cached, digest)) return row;
    await guard?.before();
    if (!(await this.compareOnce(row, parsed.secret, digest))) {
      await guard?.failed();
      throw unauthorized('Invalid API key');
    }
    return row;
  }

  // A burst of joins with a not-yet-cached key shares one bcrypt comparison instead of running one
  // each (which would queue hundreds of ~100 ms hashes on the thread pool).
  private compareOnce(row: KeyAuthRow, secret: string, digest: string): Promise<boolean> {
    const id = `${row.id}:${digest}`;
    let p = this.inFlight.get(id);
    if (!p) {
      p = bcrypt.compare(secret, row.secretHash).then((ok) => {
        if (ok) {
          if (this.verified.size >= this.maxCached) this.verified.clear();
          this.verified.set(row.id, digest);
        }
        return ok;
      });
      this.inFlight.set(id, p);
      void p.finally(() => this.inFlight.delete(id)).catch(() => undefined);
    }
    return p;
  }
}
