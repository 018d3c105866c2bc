import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LifecycleStore } from './lifecycle.js';
import type { EventStore, OutboxWrites } from './outbox.js';

// The one interface core code sees. Each dialect (src/db/sqlite, src/db/pg) implements it; nothing
// outside src/db knows which database is underneath. Times are epoch milliseconds.

export interface UserRow {
  id: string;
  email: string;
  emailNorm: string;
  name: string | null;
  passwordHash: string;
  createdAt: number;
  updatedAt: number;
}

export interface SessionRow {
  tokenHash: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
}

export interface ProjectRow {
  id: string;
  userId: string;
  name: string;
  slug: string;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  /** Join-route settings: a JSON array of allowed origins (null = any origin). */
  allowedOrigins: string | null;
  blockDisposable: boolean;
  honeypotField: string | null;
  /** The feature layers' settings (src/contract/settings-*.ts): a JSON object, `{}` when none was set. */
  settings: string;
}

/**
 * A settings change: columns set as given, and `features`, the settings JSON's fields given, merged by the
 * store into the stored object under the row's lock (two PUTs of different fields both land).
 */
export type ProjectSettingsPatch = Partial<Pick<ProjectRow, 'allowedOrigins' | 'blockDisposable' | 'honeypotField'>> & {
  features?: Record<string, unknown>;
};

/** The settings JSON `stored` with `features` set over it (the other fields kept as they are). */
export function mergedSettings(stored: string | null, features: Record<string, unknown>): string {
  return JSON.stringify({ ...(JSON.parse(stored || '{}') as Record<string, unknown>), ...features });
}

export interface KeyRow {
  id: string;
  projectId: string;
  name: string;
  lookup: string;
  prefix: string;
  secretHash: string;
  createdAt: number;
  updatedAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** `publishable` (joins only; every key made before kinds existed) or `secret` (server-to-server). */
  kind: KeyKind;
}

export type KeyKind = 'publishable' | 'secret';

/** What the join path needs about a key, in one indexed read. */
export interface KeyAuthRow {
  id: string;
  projectId: string;
  secretHash: string;
  revokedAt: number | null;
  kind: KeyKind;
}

export interface EntryRow {
  id: string;
  projectId: string;
  email: string;
  emailNorm: string;
  name: string | null;
  source: string;
  metadata: string; // serialised JSON object
  ip: string | null;
  country: string | null;
  userAgent: string | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  /** Answers to the project's custom fields: a JSON object (`{}` when none; absent = `{}`). */
  fields?: string;
  // The lifecycle (src/db/lifecycle.ts). `ordinal` and `k` are given by the store inside the insert's
  // transaction (k = ordinal - referralBoost × referrals); the token columns hold SHA-256 hashes only.
  status: EntryStatus;
  ordinal: number;
  k: number;
  referralCode: string | null;
  referredBy: string | null;
  referrals: number;
  statusTokenHash: string | null;
  confirmTokenHash: string | null;
  confirmSentAt: number | null;
  confirmResentAt: number | null;
  confirmedAt: number | null;
  invitedAt: number | null;
  acceptedAt: number | null;
  inviteCodeHash: string | null;
  inviteExpiresAt: number | null;
}

/**
 * An entry as an export reads it: what the export writes, plus its queue key. No token or code hashes
 * and nothing internal: fewer columns to read and allocate, a million times over, and no secret can
 * reach a file.
 */
export type ExportedEntry = Omit<
  EntryRow,
  | 'projectId'
  | 'emailNorm'
  | 'deletedAt'
  | 'statusTokenHash'
  | 'confirmTokenHash'
  | 'confirmSentAt'
  | 'confirmResentAt'
  | 'inviteCodeHash'
  | 'inviteExpiresAt'
>;

/** ExportedEntry's columns, in the order toExported reads them (the same names in both dialects). */
export const EXPORTED_COLUMNS = [
  'id',
  'email',
  'name',
  'source',
  'metadata',
  'ip',
  'country',
  'user_agent',
  'created_at',
  'updated_at',
  'status',
  'ordinal',
  'k',
  'referral_code',
  'referred_by',
  'referrals',
  'confirmed_at',
  'invited_at',
  'accepted_at',
  'fields',
] as const;

const orNull = (v: unknown) => (v === null ? null : Number(v));
/** A row of EXPORTED_COLUMNS read as an array (PostgreSQL sends its bigint columns as text). */
export const toExported = (r: unknown[]): ExportedEntry => ({
  id: r[0] as string,
  email: r[1] as string,
  name: r[2] as string | null,
  source: r[3] as string,
  metadata: r[4] as string,
  ip: r[5] as string | null,
  country: r[6] as string | null,
  userAgent: r[7] as string | null,
  createdAt: Number(r[8]),
  updatedAt: Number(r[9]),
  status: r[10] as EntryStatus,
  ordinal: Number(r[11]),
  k: Number(r[12]),
  referralCode: r[13] as string | null,
  referredBy: r[14] as string | null,
  referrals: Number(r[15]),
  confirmedAt: orNull(r[16]),
  invitedAt: orNull(r[17]),
  acceptedAt: orNull(r[18]),
  fields: r[19] as string,
});

/**
 * The lifecycle columns of an entry before anything happened to it: no place yet (the store gives the
 * ordinal, and k with it, inside the insert's transaction), no referrer, no tokens, no invite. Entry
 * builders (join, import, tests) spread it and set what they know.
 */
export const UNTOUCHED_LIFECYCLE = {
  ordinal: 0,
  k: 0,
  referredBy: null,
  referrals: 0,
  statusTokenHash: null,
  confirmTokenHash: null,
  confirmSentAt: null,
  confirmResentAt: null,
  confirmedAt: null,
  invitedAt: null,
  acceptedAt: null,
  inviteCodeHash: null,
  inviteExpiresAt: null,
} as const satisfies Partial<EntryRow>;

export type EntryStatus = 'pending' | 'waiting' | 'invited' | 'accepted';

export interface PageArgs {
  offset: number;
  limit: number;
}

export interface Counted<T> {
  rows: T[];
  total: number;
}

export interface StatsRows {
  total: number;
  /** Count per UTC day number (floor(ms / 86_400_000)) from `sinceDay` on. */
  perDay: { day: number; count: number }[];
  topSources: { source: string; count: number }[];
  topCountries: { country: string; count: number }[];
}

export type InsertEntryResult = 'inserted' | 'duplicate';

export interface LimiterOptions {
  /** Distinguishes limiters sharing one store, e.g. `join`, `login-ip`. */
  keyPrefix: string;
  points: number;
  /** Window in seconds. */
  duration: number;
  /** Seconds a key stays blocked once over the limit (0: until the window ends). */
  blockDuration?: number;
}

export interface Store {
  readonly dialect: 'sqlite' | 'pg';

  // users
  countUsers(): Promise<number>;
  insertUser(row: UserRow): Promise<'inserted' | 'duplicate'>;
  /** Inserts only while there is no user at all, atomically across processes: 'closed' otherwise. */
  insertFirstUser(row: UserRow): Promise<'inserted' | 'duplicate' | 'closed'>;
  userByEmail(emailNorm: string): Promise<UserRow | undefined>;
  userById(id: string): Promise<UserRow | undefined>;
  setUserPassword(id: string, passwordHash: string, now: number): Promise<boolean>;

  // sessions
  insertSession(row: SessionRow): Promise<void>;
  /** The session and its user, when the session exists and has not expired at `now`. */
  sessionByHash(tokenHash: string, now: number): Promise<{ session: SessionRow; user: UserRow } | undefined>;
  extendSession(tokenHash: string, expiresAt: number): Promise<void>;
  deleteSession(tokenHash: string): Promise<void>;
  deleteUserSessions(userId: string): Promise<void>;

  // projects (all reads skip soft-deleted rows unless named otherwise)
  insertProject(row: ProjectRow): Promise<'inserted' | 'duplicate'>;
  listProjects(userId: string, page: PageArgs): Promise<Counted<ProjectRow>>;
  projectForUser(userId: string, idOrSlug: string): Promise<ProjectRow | undefined>;
  /** A live project by slug, for the join route. */
  projectBySlug(slug: string): Promise<ProjectRow | undefined>;
  /** Any project by id, soft-deleted included (admin restore). */
  projectByIdAny(id: string): Promise<ProjectRow | undefined>;
  renameProject(id: string, name: string, now: number): Promise<ProjectRow | undefined>;
  softDeleteProject(id: string, now: number): Promise<ProjectRow | undefined>;
  restoreProject(id: string, now: number): Promise<ProjectRow | undefined>;
  /** Changes a live project's join settings (not its updatedAt). */
  /**
   * Changes the given settings columns; `rekeyReferrers`: in the same transaction, re-key the project's
   * referrers for the referralBoost the new settings hold (a boost change moves them in the queue).
   */
  updateProjectSettings(id: string, patch: ProjectSettingsPatch, rekeyReferrers?: boolean): Promise<ProjectRow | undefined>;

  // api keys (reads skip revoked keys)
  insertKey(row: KeyRow): Promise<void>;
  listKeys(projectId: string, page: PageArgs): Promise<Counted<KeyRow>>;
  keyInProject(projectId: string, keyId: string): Promise<KeyRow | undefined>;
  renameKey(projectId: string, keyId: string, name: string, now: number): Promise<KeyRow | undefined>;
  revokeKey(projectId: string, keyId: string, now: number): Promise<KeyRow | undefined>;
  /** The key by its lookup id, revoked or not, for the join route. */
  keyForAuth(lookup: string): Promise<KeyAuthRow | undefined>;

  // entries (reads skip soft-deleted rows)
  /**
   * Inserts unless a live entry of the project has the same emailNorm; resolves after the commit.
   * In the same transaction: the row's join ordinal (and k) is given; `ref`, when given and the row has
   * no referredBy, is resolved to the live entry of the project holding that referral code (an unknown
   * code leaves referredBy null) and set on `row`; when the row enters the queue as `waiting` with a
   * `referredBy`, that referrer is credited; `outbox(row)` (events, emails) is built from the row as
   * inserted and written, only when the row was inserted.
   */
  insertEntry(row: EntryRow, keyId: string, outbox?: (inserted: EntryRow) => OutboxWrites, ref?: string): Promise<InsertEntryResult>;
  listEntries(projectId: string, page: PageArgs, search?: string): Promise<Counted<EntryRow>>;
  /** Up to `limit` entries older than `beforeId` (newest first), for streaming exports. */
  entriesBefore(projectId: string, beforeId: string | null, limit: number, search?: string): Promise<ExportedEntry[]>;
  entryInProject(projectId: string, entryId: string): Promise<EntryRow | undefined>;
  updateEntry(
    projectId: string,
    entryId: string,
    patch: { name?: string | null; metadata?: string },
    now: number,
  ): Promise<EntryRow | undefined>;
  /** `outbox` builds the events/emails of the deletion, written in its transaction. */
  softDeleteEntry(
    projectId: string,
    entryId: string,
    now: number,
    outbox?: (deleted: EntryRow) => OutboxWrites,
  ): Promise<EntryRow | undefined>;
  stats(projectId: string, sinceDay: number): Promise<StatsRows>;

  /**
   * Throws unless the database takes a write now (a read-only file, a full disk, a standby server):
   * checked at start-up; cheap enough for a readiness probe. Errors carry a message for operators.
   */
  checkWritable(): Promise<void>;

  // sign-up surface (src/db/surface.ts documents these)
  /** The named server-wide secret; created with `make()` by whichever instance asks first. */
  serverSecret(name: string, make: () => string): Promise<string>;
  /** Records a captcha solution as used: false when it was used before. Purges expired ones. */
  useCaptchaSolution(signature: string, expiresAt: number, now: number): Promise<boolean>;
  /**
   * Inserts imported entries (one transaction), skipping live duplicates, numbering the inserted ones
   * in the order given; resolves to how many, and the ordinals they took (`first` … `first + inserted − 1`).
   */
  importEntries(rows: EntryRow[]): Promise<ImportedBatch>;
  /** Which of these normalised emails a live entry of the project already has (import dry runs). */
  liveEmailNorms(projectId: string, emailNorms: string[]): Promise<string[]>;
  /** Statuses, queue positions, referrals, tokens and invites (src/db/lifecycle.ts). */
  readonly lifecycle: LifecycleStore;

  /** A rate limiter whose counters live where every instance sharing this database sees them. */
  rateLimiter(opts: LimiterOptions): RateLimiterAbstract;

  /** The events layer: outbox, webhooks, deliveries, email templates (src/db/outbox.ts). */
  readonly events: EventStore;
  /** `listener` runs after each commit that wrote outbox rows (the dispatcher wakes on it). */
  onOutboxWrite(listener: () => void): void;
  /** Readiness probe: resolves when the database can take writes now; rejects (DatabaseUnavailableError) otherwise. Cheap. */
  ping(): Promise<void>;

  close(): Promise<void>;
}

/**
 * Between the reads of a long loop (an export's pages, the queue read before it): on SQLite, whose reads
 * answer synchronously, a turn of the event loop, so requests arriving meanwhile (joins, health checks)
 * are answered between two pages instead of after the whole loop. On PostgreSQL each read is I/O already.
 */
export function betweenReads(store: Pick<Store, 'dialect'>): Promise<void> | undefined {
  return store.dialect === 'sqlite' ? new Promise<void>((r) => setImmediate(r)) : undefined;
}

/** Escapes LIKE wildcards so a user's `%`, `_` and `\` match literally (use with ESCAPE '\'). */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The queue position of a row just inserted by `insertEntry` (or confirmed by `lifecycle.confirm`),
 * given by the store inside that transaction, before its outbox rows are built (an event's entry
 * carries it): a new waiting entry is last in the queue, so its position is the waiting count as of
 * its commit (both dialects; SQLite also records null for an entry not waiting). Absent: the caller
 * asks the lifecycle store (`positions`) after the commit.
 */
export const positionAtInsert = new WeakMap<EntryRow, number | null>();

/** What `importEntries` wrote: how many rows, from which join ordinal on (consecutive). */
export interface ImportedBatch {
  inserted: number;
  first: number;
}
