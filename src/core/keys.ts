// API keys: `wl_<lookup><secret>`. The lookup id finds the row by index; only a bcrypt hash of the
// secret is stored. A successful bcrypt comparison is cached per process (as a SHA-256 of the secret)
// so bcrypt runs once per key, while the row's revoked state is read on every join; see KeyVerifier for
// how bcrypt work stays bounded under a flood of bad keys.
import bcrypt from 'bcrypt';
import type { KeyAuthRow, KeyKind, KeyRow, PageArgs, Store } from '../db/store.js';
import { randomToken, safeEqual, sha256 } from './crypto.js';
import { AppError, notFound, unavailable } from './errors.js';
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

/** The key an `Authorization: Bearer <key>` header value presents, or undefined when it is not one. */
export function bearerKey(authorization: string | undefined): string | undefined {
  return authorization ? /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
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

/** A client's budget of wrong secrets, counted before each bcrypt check (src/server/ratelimit.ts keyGuard). */
export interface BcryptGuard {
  /** Who is asking (their rate-limit address): each client may have only a few checks pending. */
  client?: string;
  /** Counts one failure in advance; throws (e.g. 429) when the client has none left. */
  before(): Promise<void>;
  /** The check passed (or was never run): gives the failure counted in advance back. */
  succeeded(): Promise<void>;
}

/**
 * Runs at most `max` async jobs at once; refuses (returns undefined) when `maxQueued` already wait.
 * Waiting jobs are served round-robin between owners (FIFO within one), so a flood of one owner's
 * jobs delays another owner's by at most one job per owner ahead of it.
 */
export class Gate {
  private running = 0;
  private queued = 0;
  // Map order is the round-robin order: an owner served goes to the back.
  private readonly waiting = new Map<string, (() => void)[]>();
  constructor(
    private readonly max: number,
    private readonly maxQueued: number,
  ) {}

  async run<T>(job: () => Promise<T>, owner = ''): Promise<T | undefined> {
    if (this.running >= this.max) {
      if (this.queued >= this.maxQueued) return undefined;
      await new Promise<void>((resolve) => {
        const q = this.waiting.get(owner);
        if (q) q.push(resolve);
        else this.waiting.set(owner, [resolve]);
        this.queued++;
      });
    } else {
      this.running++;
    }
    try {
      return await job();
    } finally {
      this.next();
    }
  }

  private next() {
    const first = this.waiting.entries().next();
    if (first.done) {
      this.running--;
      return;
    }
    const [owner, q] = first.value;
    const resolve = q.shift()!;
    this.queued--;
    this.waiting.delete(owner);
    if (q.length) this.waiting.set(owner, q);
    resolve(); // the slot passes to this job: `running` is unchanged
  }
}

export interface KeyVerifierOptions {
  /** Verified keys remembered (keyId → hash of the secret). */
  maxCached?: number;
  /** bcrypt comparisons running at once (each holds a libuv thread and a core for ~60 ms). */
  maxConcurrent?: number;
  /** Comparisons allowed to wait for a slot, all keys together; beyond that, 503 at once. */
  maxQueued?: number;
  /** Comparisons one key may have running or waiting; beyond that, 503 at once. */
  perKeyPending?: number;
  /** Comparisons one client may have running or waiting; beyond that, 503 at once. */
  perClientPending?: number;
  /** Failed comparisons one key may cost: a bucket of this many, refilled at `keyFailuresPerSec`. */
  keyFailureBurst?: number;
  keyFailuresPerSec?: number;
  /** How long a failed (keyId, secret) pair is answered from memory. */
  failTtlMs?: number;
}

/** A token bucket per key: failed comparisons it may still cost. */
interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Verifies join keys with bcrypt work bounded, so a flood of bad keys cannot stall good joins:
 * - malformed keys, unknown lookups and revoked keys are refused before any hashing;
 * - a successful comparison is remembered (keyId → SHA-256 of the secret and the stored hash), so a
 *   key costs one bcrypt per process; once a key is known, any other secret for it is refused by
 *   comparing digests (a bcrypt hash has one secret), without bcrypt;
 * - failed comparisons are remembered briefly; identical concurrent comparisons share one bcrypt;
 * - budgets, each checked BEFORE bcrypt runs: the client's wrong-secret limit (the guard, 429); per
 *   key, a bucket of failed comparisons (a flooded key costs about `keyFailuresPerSec` bcrypt runs a
 *   second), and a few pending comparisons per key and per client; a server-wide cap on waiting ones.
 *   A check refused by these answers 503 service_unavailable with Retry-After, never 401: the key may
 *   be valid. Waiting comparisons are served round-robin by key, so one key's flood delays another
 *   key's first check by one comparison at most.
 * The key row (and so its revoked state) is read on every join.
 */
export class KeyVerifier {
  private readonly verified = new Map<string, { hash: string; digest: string }>();
  private readonly failed = new Map<string, number>(); // `${keyId}:${digest}` → expiry (ms)
  private readonly inFlight = new Map<string, Promise<Outcome>>();
  private readonly pendingByKey = new Map<string, number>();
  private readonly pendingByClient = new Map<string, number>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly spent = new Map<string, number>(); // lookup → until (ms): refused without a read
  private readonly gate: Gate;
  private readonly o: Required<Omit<KeyVerifierOptions, 'maxConcurrent' | 'maxQueued'>>;

  constructor(
    private readonly store: Store,
    opts: KeyVerifierOptions = {},
  ) {
    this.o = {
      maxCached: opts.maxCached ?? 10_000,
      failTtlMs: opts.failTtlMs ?? 60_000,
      perKeyPending: opts.perKeyPending ?? 4,
      perClientPending: opts.perClientPending ?? 2,
      keyFailureBurst: opts.keyFailureBurst ?? 20,
      keyFailuresPerSec: opts.keyFailuresPerSec ?? 0.5,
    };
    this.gate = new Gate(opts.maxConcurrent ?? 1, opts.maxQueued ?? 64);
  }

  /**
   * The key row for an `Authorization` header value, or a 401 AppError (wrong key), 429 (the guard:
   * this client sent too many wrong secrets) or 503 (no bcrypt budget left now; retry).
   */
  async verify(authorization: string | undefined, guard?: BcryptGuard): Promise<KeyAuthRow> {
    const presented = bearerKey(authorization);
    if (!presented) throw unauthorized('Missing API key: send Authorization: Bearer <key>');
    const parsed = parseKey(presented);
    if (!parsed) throw unauthorized('Invalid API key');
    // A key whose failure budget is spent is refused before the database is read: a flood then costs
    // no query per request. (Only keys not yet verified get here: verifying one clears the entry.)
    const spentUntil = this.spent.get(parsed.lookup);
    if (spentUntil !== undefined) {
      if (spentUntil > Date.now()) throw unavailable('Too many API key checks in progress; retry shortly', 1);
      this.spent.delete(parsed.lookup);
    }
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
    let outcome = await this.compare(row, parsed.secret, digest, guard);
    // The identical check another client started was refused by that client's limit: run our own.
    if (outcome.limited && outcome.owner !== guard) outcome = await this.compare(row, parsed.secret, digest, guard);
    if (outcome.ok === true) this.spent.delete(parsed.lookup);
    if (outcome.spent) this.remember(this.spent, parsed.lookup, Date.now() + 1000 / this.o.keyFailuresPerSec);
    if (outcome.limited) throw outcome.limited;
    if (outcome.ok === false) throw unauthorized('Invalid API key');
    if (outcome.ok === undefined) throw unavailable('Too many API key checks in progress; retry shortly', 1);
    return row;
  }

  /**
   * bcrypt-compares once per (key, secret) at a time, within the budgets: `ok` undefined when a budget
   * refused it, `limited` when the client's own limit did. Everything up to registering the check is
   * synchronous, so concurrent identical checks share one bcrypt and are counted once.
   */
  private compare(row: KeyAuthRow, secret: string, digest: string, guard: BcryptGuard | undefined): Promise<Outcome> {
    const id = `${row.id}:${digest}`;
    const until = this.failed.get(id);
    if (until !== undefined) {
      if (until > Date.now()) {
        // Known wrong: no bcrypt, but it still counts against the client's wrong-secret limit.
        return (guard ? guard.before() : Promise.resolve()).then(
          () => ({ ok: false }),
          (err: unknown) => limitedBy(err, guard),
        );
      }
      this.failed.delete(id);
    }
    const shared = this.inFlight.get(id);
    if (shared) return shared;
    const client = guard?.client ?? '';
    if ((this.pendingByKey.get(row.id) ?? 0) >= this.o.perKeyPending) return Promise.resolve({ ok: undefined });
    if (client && (this.pendingByClient.get(client) ?? 0) >= this.o.perClientPending) return Promise.resolve({ ok: undefined });
    add(this.pendingByKey, row.id, 1);
    add(this.pendingByClient, client, 1);
    const p = (async (): Promise<Outcome> => {
      try {
        await guard?.before(); // counted as a failure BEFORE bcrypt runs; given back below when right
      } catch (err) {
        return limitedBy(err, guard); // the client's own limit comes first: 429, not 503
      }
      if (!this.takeToken(row.id)) {
        await guard?.succeeded(); // not run, so not a failure
        return { ok: undefined, spent: true };
      }
      const ok = await this.gate.run(() => bcrypt.compare(secret, row.secretHash), row.id);
      if (ok === true) this.remember(this.verified, row.id, { hash: row.secretHash, digest });
      else if (ok === false) this.remember(this.failed, id, Date.now() + this.o.failTtlMs);
      if (ok !== false) {
        this.giveToken(row.id); // only failures spend the key's budget
        await guard?.succeeded();
      }
      return { ok };
    })().finally(() => {
      this.inFlight.delete(id);
      add(this.pendingByKey, row.id, -1);
      add(this.pendingByClient, client, -1);
    });
    this.inFlight.set(id, p);
    return p;
  }

  /** Takes one failed-comparison token from the key's bucket (refilled over time); false when empty. */
  private takeToken(keyId: string): boolean {
    const now = Date.now();
    const b = this.buckets.get(keyId) ?? { tokens: this.o.keyFailureBurst, at: now };
    b.tokens = Math.min(this.o.keyFailureBurst, b.tokens + ((now - b.at) / 1000) * this.o.keyFailuresPerSec);
    b.at = now;
    if (b.tokens < 1) {
      this.remember(this.buckets, keyId, b);
      return false;
    }
    b.tokens -= 1;
    this.remember(this.buckets, keyId, b);
    return true;
  }

  private giveToken(keyId: string) {
    const b = this.buckets.get(keyId);
    if (b) b.tokens = Math.min(this.o.keyFailureBurst, b.tokens + 1);
  }

  private remember<V>(map: Map<string, V>, key: string, value: V) {
    if (map.size >= this.o.maxCached && !map.has(key)) map.clear();
    map.set(key, value);
  }
}

/** What a comparison came to: `ok` (undefined = refused by a budget), or the client's limit error. */
interface Outcome {
  ok?: boolean | undefined;
  /** The key's failure budget is empty. */
  spent?: boolean;
  limited?: unknown;
  owner?: BcryptGuard | undefined;
}

/** An outcome for an error of the guard (its 429); any other error is rethrown. */
function limitedBy(err: unknown, guard: BcryptGuard | undefined): Outcome {
  if (err instanceof AppError && err.code === 'rate_limited') return { limited: err, owner: guard };
  throw err;
}

function add(map: Map<string, number>, key: string, n: number) {
  const v = (map.get(key) ?? 0) + n;
  if (v <= 0) map.delete(key);
  else map.set(key, v);
}
