// API keys: `wl_<lookup><secret>`. The lookup id finds the row by index; only a bcrypt hash of the
// secret is stored. A successful bcrypt comparison is cached per process (as a SHA-256 of the secret)
// so bcrypt runs once per key, while the row's revoked state is read on every join; see KeyVerifier for
// how bcrypt work stays bounded under a flood of bad keys.
import bcrypt from 'bcrypt';
import type { KeyAuthRow, KeyKind, KeyRow, PageArgs, Store } from '../db/store.js';
import { randomToken, safeEqual, sha256 } from './crypto.js';
import { AppError, notFound } from './errors.js';
import { newId } from './ids.js';

const LOOKUP_LEN = 12; // 9 random bytes, base64url
const SECRET_LEN = 32; // 24 random bytes (192 bits), base64url
// `wl_pk_…` (publishable) and `wl_sk_…` (secret); keys made before kinds existed are `wl_…` (publishable).
// The lengths differ (50 vs 47 characters), so the two shapes cannot be confused.
const KEY_RE = new RegExp(`^wl_(?:(pk|sk)_)?([A-Za-z0-9_-]{${LOOKUP_LEN + SECRET_LEN}})$`);
const KIND_TAG = { publishable: 'pk', secret: 'sk' } as const;
const KEY_BCRYPT_COST = 10;

/** Splits a presented key into its lookup id and secret; undefined when malformed. */
export function parseKey(value: string): { lookup: string; secret: string; kind?: KeyKind } | undefined {
  const m = KEY_RE.exec(value);
  if (!m) return undefined;
  const body = m[2]!;
  const kind = m[1] === 'pk' ? 'publishable' : m[1] === 'sk' ? 'secret' : undefined;
  return { lookup: body.slice(0, LOOKUP_LEN), secret: body.slice(LOOKUP_LEN), ...(kind ? { kind } : {}) };
}

/** Creates a key for a project; the full value is returned here and never again. */
export async function createKey(
  store: Store,
  projectId: string,
  name: string,
  kind: KeyKind = 'publishable',
): Promise<{ row: KeyRow; key: string }> {
  const lookup = randomToken(9);
  const secret = randomToken(24);
  const head = `wl_${KIND_TAG[kind]}_`;
  const key = `${head}${lookup}${secret}`;
  const now = Date.now();
  const row: KeyRow = {
    id: newId('key'),
    projectId,
    name,
    lookup,
    prefix: key.slice(0, head.length + 8),
    secretHash: await bcrypt.hash(secret, KEY_BCRYPT_COST),
    createdAt: now,
    updatedAt: now,
    lastUsedAt: null,
    revokedAt: null,
    kind,
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

// A refused key is a plain 401; the join route adds the Bearer challenge header (src/server/bearer.ts).
const unauthorized = (message: string) => new AppError('unauthorized', message);

export interface BcryptGuard {
  before(): Promise<void>;
  failed(): Promise<void>;
}

/** Runs at most `max` async jobs at once; refuses (returns undefined) when `maxQueued` already wait. */
export class Gate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(
    private readonly max: number,
    private readonly maxQueued: number,
  ) {}

  async run<T>(job: () => Promise<T>): Promise<T | undefined> {
    if (this.running >= this.max) {
      if (this.waiting.length >= this.maxQueued) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

export interface KeyVerifierOptions {
  /** Verified keys remembered (keyId → hash of the secret). */
  maxCached?: number;
  /** bcrypt comparisons running at once (each holds a libuv thread and a core for ~60 ms). */
  maxConcurrent?: number;
  /** Comparisons allowed to wait for a slot; beyond that a key that needs one is refused at once. */
  maxQueued?: number;
  /** How long a failed (keyId, secret) pair is answered from memory. */
  failTtlMs?: number;
}

/**
 * Verifies join keys with bcrypt work bounded, so a flood of bad keys cannot stall good joins:
 * - malformed keys, unknown lookups and revoked keys are refused before any hashing;
 * - a successful comparison is remembered (keyId → SHA-256 of the secret and the stored hash), so a
 *   key costs one bcrypt per process; once a key is known, any other secret for it is refused by
 *   comparing digests (a bcrypt hash has one secret), without bcrypt;
 * - failed comparisons are remembered briefly; identical concurrent comparisons share one bcrypt;
 * - at most `maxConcurrent` comparisons run at once and `maxQueued` wait; beyond that, 401 at once.
 * The key row (and so its revoked state) is read on every join.
 */
export class KeyVerifier {
  private readonly verified = new Map<string, { hash: string; digest: string }>();
  private readonly failed = new Map<string, number>(); // `${keyId}:${digest}` → expiry (ms)
  private readonly inFlight = new Map<string, Promise<boolean | undefined>>();
  private readonly gate: Gate;
  private readonly maxCached: number;
  private readonly failTtlMs: number;

  constructor(
    private readonly store: Store,
    opts: KeyVerifierOptions = {},
  ) {
    this.maxCached = opts.maxCached ?? 10_000;
    this.failTtlMs = opts.failTtlMs ?? 60_000;
    this.gate = new Gate(opts.maxConcurrent ?? 1, opts.maxQueued ?? 64);
  }

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
    // A value's kind tag must match its row (old untagged keys are publishable rows).
    if ((parsed.kind ?? 'publishable') !== row.kind) throw unauthorized('Invalid API key');
    const digest = sha256(parsed.secret);
    const known = this.verified.get(row.id);
    if (known !== undefined && known.hash === row.secretHash) {
      if (safeEqual(known.digest, digest)) return row;
      throw unauthorized('Invalid API key');
    }
    await guard?.before();
    const ok = await this.compare(row, parsed.secret, digest);
    if (ok === undefined) throw unauthorized('Invalid API key (too many key checks in progress; retry shortly)');
    if (!ok) {
      await guard?.failed();
      throw unauthorized('Invalid API key');
    }
    return row;
  }

  /** bcrypt-compares once per (key, secret) at a time, through the gate; undefined when refused. */
  private compare(row: KeyAuthRow, secret: string, digest: string): Promise<boolean | undefined> {
    const id = `${row.id}:${digest}`;
    const until = this.failed.get(id);
    if (until !== undefined) {
      if (until > Date.now()) return Promise.resolve(false);
      this.failed.delete(id);
    }
    let p = this.inFlight.get(id);
    if (!p) {
      p = this.gate
        .run(() => bcrypt.compare(secret, row.secretHash))
        .then((ok) => {
          if (ok === true) this.remember(this.verified, row.id, { hash: row.secretHash, digest });
          else if (ok === false) this.remember(this.failed, id, Date.now() + this.failTtlMs);
          return ok;
        })
        .finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, p);
    }
    return p;
  }

  private remember<V>(map: Map<string, V>, key: string, value: V) {
    if (map.size >= this.maxCached) map.clear();
    map.set(key, value);
  }
}
