// The waitlist lifecycle (LIFECYCLE.md): what a join gets (status, referral code, status token),
// confirmation, the subscriber's own view and leave, positions for the management API, stats.
// Tokens are 256 bits after a time prefix: an invite code random, an entry's confirmation and status
// tokens an HMAC of its id (so any later email can carry the same links); only their SHA-256 (with the
// prefix) is stored.
import type { PublicEntry } from '../contract/lifecycle.js';
import type { Entry } from '../contract/types.js';
import type { QueueQuery } from '../db/lifecycle.js';
import {
  betweenReads,
  positionAtInsert,
  type EntryRow,
  type ExportedEntry,
  type PageArgs,
  type ProjectRow,
  type Store,
} from '../db/store.js';
import { hmacSha256, randomToken, sha256 } from './crypto.js';
import { AppError } from './errors.js';
import { entryData, entryEvent, newEmail, sendsNotices, type EmailVars } from './outbox.js';
import { toEntry } from './serialize.js';
import { serverKey } from './server-keys.js';
import { featureSettings } from './settings.js';

const MIN_MS = 60_000;
const DAY_MS = 86_400_000;
/** Later re-joins of a pending email resend the confirmation at most this often (the first at once). */
export const RESEND_INTERVAL_MS = 10 * MIN_MS;

/**
 * Secrets and codes begin with the time they were made: the millisecond in base 36, 9 characters
 * (fixed width until the year 5188; digits and lower-case letters sort alike in every collation).
 * Their unique indexes are B-trees, so keys that grow with time go in at the right edge: the tokens and
 * codes of one join batch share a leaf page instead of each dirtying (and first reading) a random one
 * (docs/performance.md, round nine). The prefix is not secret; the random part after it is.
 */
const TIME_CHARS = 9;
export const timePrefix = (now = Date.now()) => now.toString(36).padStart(TIME_CHARS, '0');

/** A fresh secret for a subscriber link or invite: the time prefix and 256 random bits (base64url). */
export const newSecret = () => timePrefix() + randomToken(32);

const CONFIRM_KEY = 'confirm-token-hmac-v1';
const STATUS_KEY = 'status-token-hmac-v1';
type Mac = (message: string) => string;
const macs = new WeakMap<Store, Map<string, Mac>>();
/**
 * HMAC-SHA256 under the server key `name`: the function itself once the key is loaded (so a join
 * derives its status token without waiting a turn), else a promise of it.
 */
function macOf(store: Store, name: string): Mac | Promise<Mac> {
  const known = macs.get(store)?.get(name);
  if (known) return known;
  return serverKey(store, name).then((key) => {
    let byName = macs.get(store);
    if (!byName) {
      byName = new Map();
      macs.set(store, byName);
    }
    const mac = byName.get(name) ?? hmacSha256(key);
    byName.set(name, mac);
    return mac;
  });
}
const derive = (mac: Mac, entryId: string, joinedAt: number) => timePrefix(joinedAt) + mac(entryId);

/**
 * An entry's confirmation token: its join time's prefix and an HMAC-SHA256 of its id under a
 * server-wide key (256 bits, base64url), stored only as a hash like every other secret. Derived rather
 * than drawn, so a resent confirmation carries the same link as the first: whichever of its emails the
 * subscriber opens works. A new entry (the same email joining again after leaving) has a new id, so a
 * new token.
 */
export async function confirmTokenOf(store: Store, entryId: string, joinedAt: number): Promise<string> {
  return derive(await macOf(store, CONFIRM_KEY), entryId, joinedAt);
}
/**
 * An entry's status token (its status and leave links), derived the same way under its own key: the
 * join answers it once, and every later email to the subscriber (the welcome after a confirmation, an
 * invite, a resent confirmation) carries the same links without the server keeping the token.
 */
export function statusTokenOf(store: Store, entryId: string, joinedAt: number): string | Promise<string> {
  // Synchronous once the key is loaded: the join path derives it without waiting a turn.
  const mac = macOf(store, STATUS_KEY);
  return typeof mac === 'function' ? derive(mac, entryId, joinedAt) : mac.then((m) => derive(m, entryId, joinedAt));
}

/**
 * The subscriber links of an email to one entry, from a function made once per request (it reads the
 * server key) and then called synchronously inside a store transaction: statusUrl and leaveUrl (which
 * also becomes the List-Unsubscribe header) when the entry's stored status token is the derived one,
 * and its referralUrl. Entries whose token was drawn at random (joined before tokens were derived) and
 * imported ones (no token) get the referral link only.
 */
export async function emailLinks(store: Store, project: ProjectRow, base: string): Promise<(row: EntryRow) => EmailVars> {
  const mac = await macOf(store, STATUS_KEY);
  return (row) => {
    const vars: EmailVars = { referralUrl: row.referralCode ? referralUrlOf(project, base, row.referralCode) : null };
    if (row.statusTokenHash) {
      const token = derive(mac, row.id, row.createdAt);
      if (secretHash(token) === row.statusTokenHash) Object.assign(vars, subscriberLinks(project, base, token));
    }
    return vars;
  };
}
const PREFIXED_SECRET = /^[0-9a-z]{9}[\w-]{43}$/;
/**
 * What is stored, and looked up, for a secret: its time prefix and its SHA-256 (hex), so the hashes'
 * index also grows at the right edge. A secret without the prefix (those made before it: 43
 * characters) is stored as its bare SHA-256, and is still found by it.
 */
export const secretHash = (secret: string) =>
  PREFIXED_SECRET.test(secret) ? secret.slice(0, TIME_CHARS) + sha256(secret) : sha256(secret);
/** Random characters of a referral code after its time prefix: 8 base64url characters, 48 bits. */
export const REFERRAL_CODE_BYTES = 6;
/** A referral code: the time prefix and 48 random bits (17 characters), unique per project by index. */
export const newReferralCode = () => timePrefix() + randomToken(REFERRAL_CODE_BYTES);

/** The server's public origin for links: `publicUrl` when configured, else the request's own origin. */
export function publicBase(publicUrl: string | undefined, host: string | undefined, https: boolean): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return `${https ? 'https' : 'http'}://${host ?? '127.0.0.1'}`;
}

/** The entry's referral link: the project's template, or the hosted page `/w/:slug?ref={code}`. */
export function referralUrlOf(project: ProjectRow, base: string, code: string): string {
  const t = featureSettings(project).referralUrl;
  const c = encodeURIComponent(code);
  return t ? t.replaceAll('{code}', c) : `${base}/w/${project.slug}?ref=${c}`;
}

/** Links a subscriber gets in emails and pages. */
export function subscriberLinks(project: ProjectRow, base: string, statusToken: string | null) {
  const t = statusToken ? encodeURIComponent(statusToken) : '';
  return { statusUrl: `${base}/w/${project.slug}/status?token=${t}`, leaveUrl: `${base}/w/${project.slug}/leave?token=${t}` };
}

/** Entries with their exact positions, as the management API shows them. */
export async function withPositions(store: Store, projectId: string, rows: EntryRow[]): Promise<Entry[]> {
  const pos = await store.lifecycle.positions(projectId, rows);
  return rows.map((r) => toEntry(r, pos.get(r.id) ?? null));
}

/** An exported row: the entry and its queue position (null unless waiting). */
export type ExportRow = ExportedEntry & { position?: number | null };

// Pages of 2,000 keys: pages of 50,000 (arrays of arrays that outlive a young-generation collection)
// raised a 1M export's peak memory by ~100 MB and made it slower.
const QUEUE_PAGE = 2_000;

/**
 * The whole queue's positions, read once in pages of queue keys in queue order: for each waiting
 * ordinal, its position and the k it had then. Two typed arrays indexed by ordinal (12 bytes per
 * ordinal: 12 MB for a million), not a million map entries.
 */
export class QueuePositions {
  private pos = new Int32Array(0);
  private keyOf = new Float64Array(0);

  /**
   * Ordinals at or above `limit` are not held (their rows are ranked with their chunk): memory stays
   * proportional to the queue (at most ~100 bytes per waiting entry, plus 12 MB) however sparse the
   * project's ordinals are.
   */
  private constructor(private readonly limit: number) {}

  static async read(store: Store, projectId: string, page = QUEUE_PAGE): Promise<QueuePositions> {
    const q = new QueuePositions(8 * (await store.lifecycle.waitingTotal(projectId)) + 2 ** 20);
    let after: [number, number] | null = null;
    let n = 0;
    for (;;) {
      const keys = await store.lifecycle.queueKeys(projectId, after, page);
      for (const [k, o] of keys) q.set(o, k, ++n);
      if (keys.length < page) return q;
      after = keys[keys.length - 1]!;
      await betweenReads(store);
    }
  }

  private set(ordinal: number, k: number, position: number) {
    if (ordinal < 0 || ordinal >= this.limit) return; // not held: such a row is ranked with its chunk
    if (ordinal >= this.pos.length) {
      const size = Math.min(this.limit, Math.max(1024, ordinal + 1, this.pos.length * 2));
      const pos = new Int32Array(size);
      pos.set(this.pos);
      const keyOf = new Float64Array(size);
      keyOf.set(this.keyOf);
      this.pos = pos;
      this.keyOf = keyOf;
    }
    // Ordinals are unique per project; should two waiting rows ever share one, neither is answered here.
    this.pos[ordinal] = this.pos[ordinal] === 0 ? position : -1;
    this.keyOf[ordinal] = k;
  }

  /** The row's position when the queue was read, if it was waiting then with the same k; else undefined. */
  of(r: Pick<EntryRow, 'k' | 'ordinal'>): number | undefined {
    const p = r.ordinal >= 0 && r.ordinal < this.pos.length ? this.pos[r.ordinal]! : 0;
    return p > 0 && this.keyOf[r.ordinal] === r.k ? p : undefined;
  }
}

/**
 * Export chunks with each waiting row's position attached. Without a search the queue is read once
 * first (QueuePositions) and each row takes its position from there; the rows it cannot answer (they
 * became waiting, or their k changed, after that read) are ranked with their chunk, exactly, then. With
 * a search (few rows, usually) each chunk is ranked on its own.
 */
export async function* withChunkPositions(store: Store, projectId: string, chunks: AsyncIterable<ExportedEntry[]>, search?: string) {
  const queue = search ? null : await QueuePositions.read(store, projectId);
  for await (const rows of chunks) {
    const rest: ExportedEntry[] = [];
    for (const r of rows) {
      if (r.status !== 'waiting') continue;
      const p = queue?.of(r);
      if (p === undefined) rest.push(r);
      else (r as ExportRow).position = p;
    }
    if (rest.length) {
      const pos = await store.lifecycle.positions(projectId, rest);
      for (const r of rest) (r as ExportRow).position = pos.get(r.id) ?? null;
    }
    yield rows as ExportRow[];
  }
}

export async function entryWithPosition(store: Store, row: EntryRow): Promise<Entry> {
  return (await withPositions(store, row.projectId, [row]))[0]!;
}

/** The subscriber's own view of their entry. */
export async function publicView(store: Store, project: ProjectRow, row: EntryRow, base: string): Promise<PublicEntry> {
  const [pos, total] = await Promise.all([store.lifecycle.positions(project.id, [row]), store.lifecycle.waitingTotal(project.id)]);
  return publicEntry(project, row, pos.get(row.id) ?? null, total, base);
}

/** The subscriber's status by their status token (row, position and total read together), or 404. */
export async function statusByToken(store: Store, project: ProjectRow, token: string, base: string): Promise<PublicEntry> {
  const found = await store.lifecycle.statusByToken(secretHash(token));
  if (!found || found.row.projectId !== project.id) throw tokenNotFound();
  return publicEntry(project, found.row, found.position, found.total, base);
}

function publicEntry(project: ProjectRow, row: EntryRow, position: number | null, total: number, base: string): PublicEntry {
  return {
    email: row.email,
    name: row.name,
    status: row.status,
    position,
    total,
    referralCode: row.referralCode ?? '',
    referralUrl: row.referralCode ? referralUrlOf(project, base, row.referralCode) : '',
    referrals: row.referrals,
  };
}

const tokenNotFound = () => new AppError('not_found', 'This link is not valid (unknown, used or expired)');

/** The live entry of this project that a status token belongs to, or 404. */
export async function entryByStatusToken(store: Store, project: ProjectRow, token: string): Promise<EntryRow> {
  const row = await store.lifecycle.entryByStatusToken(secretHash(token));
  if (!row || row.projectId !== project.id) throw tokenNotFound();
  return row;
}

/** The live entry of this project that a confirmation token belongs to (pending, or already confirmed), or 404. */
export async function entryByConfirmToken(store: Store, project: ProjectRow, token: string): Promise<EntryRow> {
  const row = token ? await store.lifecycle.entryByConfirmToken(secretHash(token)) : undefined;
  if (!row || row.projectId !== project.id) throw tokenNotFound();
  return row;
}

/** Confirms a pending entry by its emailed token: it becomes waiting (queue order = join time). */
export async function confirmEntry(store: Store, project: ProjectRow, token: string, base: string): Promise<EntryRow> {
  const found = await entryByConfirmToken(store, project, token);
  const now = Date.now();
  // entry.confirmed is written in the confirmation's transaction (not for a repeat confirm).
  // With welcomeEmail on, the welcome goes out now that the subscriber is in (events layer, docs/events.md),
  // with the place it has now and the subscriber's links.
  const links = featureSettings(project).welcomeEmail ? await emailLinks(store, project, base) : null;
  const row = await store.lifecycle.confirm(project.id, found.id, now, 0, (after) => ({
    events: [entryEvent('entry.confirmed', project.id, entryData(after), now, sendsNotices(project))],
    ...(links ? { emails: [welcomeEmail(project.id, after, links(after), now)] } : {}),
  }));
  if (!row) throw tokenNotFound();
  return row;
}

/** The welcome email of an entry that has just reached the queue: its place then, and its links. */
export function welcomeEmail(projectId: string, row: EntryRow, links: EmailVars, now: number) {
  return newEmail(
    projectId,
    'welcome',
    row.email,
    { email: row.email, name: row.name, position: positionAtInsert.get(row) ?? null, ...links },
    now,
  );
}

/** The subscriber's leave: erases the entry for good (not a soft delete). */
export async function leave(store: Store, project: ProjectRow, token: string): Promise<{ entryId: string }> {
  const row = await entryByStatusToken(store, project, token);
  // entry.deleted carries only {entryId} after a leave (the rest is erased), in the erase's transaction.
  const ok = await store.lifecycle.erase(project.id, row.id, 0, (r) => ({
    events: [entryEvent('entry.deleted', project.id, () => ({ entryId: r.id }))],
  }));
  if (!ok) throw tokenNotFound();
  return { entryId: row.id };
}

/**
 * Queues a confirmation email again for a pending entry (the same links as the first: its tokens are
 * derived from the entry), in the transaction that records the resend, and only when the last resend is
 * older than RESEND_INTERVAL_MS: of many concurrent re-joins one sends.
 */
async function resendConfirmation(store: Store, project: ProjectRow, row: EntryRow, base: string) {
  const token = await confirmTokenOf(store, row.id, row.createdAt);
  const links = (await emailLinks(store, project, base))(row);
  const now = Date.now();
  const confirmUrl = `${base}/w/${project.slug}/confirm?token=${encodeURIComponent(token)}`;
  await store.lifecycle.setConfirmToken(row.id, secretHash(token), now, now - RESEND_INTERVAL_MS, {
    emails: [newEmail(project.id, 'confirmation', row.email, { email: row.email, name: row.name, confirmUrl, ...links }, now)],
  });
}

/**
 * A join hit an existing email: when that entry is still pending, resend its confirmation (the first
 * re-join at once, later ones at most once per RESEND_INTERVAL_MS). The join still answers 409.
 */
export async function resendIfPending(store: Store, project: ProjectRow, emailNorm: string, base: string) {
  const row = await store.lifecycle.entryByEmail(project.id, emailNorm);
  if (!row || row.status !== 'pending') return;
  if (row.confirmResentAt !== null && Date.now() - row.confirmResentAt < RESEND_INTERVAL_MS) return;
  await resendConfirmation(store, project, row, base);
}

/** Erases pending entries older than each project's pendingPurgeDays; how many. */
export async function purgePending(store: Store, now = Date.now()): Promise<number> {
  let n = 0;
  // The shortest allowed age (1 day) bounds the candidates; each project's own setting decides.
  for (const projectId of await store.lifecycle.projectsWithPending(now - DAY_MS)) {
    const p = await store.projectByIdAny(projectId);
    if (!p) continue;
    n += await store.lifecycle.purgePending(projectId, now - featureSettings(p).pendingPurgeDays * DAY_MS);
  }
  return n;
}

/** `a***@e***.com`: enough to recognise oneself, never the address. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${[...local][0] ?? ''}***@${[...domain][0] ?? ''}***${tld}`;
}

/** Anything shaped like an address inside free text (`Dave (dave@corp.example)`). */
const ADDRESS_IN_TEXT = /[^\s@<>()[\]"',;:]+@[^\s@<>()[\]"',;:]+/g;

/**
 * A referrer's name as the public leaderboard shows it: the entry's name, with any address typed into
 * it masked (people do type their email into the name box), else the masked email. Never a full address.
 */
export function publicName(name: string | null, email: string): string {
  return name === null ? maskEmail(email) : name.replace(ADDRESS_IN_TEXT, maskEmail);
}

/** The exact position of one entry (null unless waiting). */
export async function positionOf(
  store: Store,
  row: Pick<EntryRow, 'id' | 'projectId' | 'status' | 'k' | 'ordinal'>,
): Promise<number | null> {
  return (await store.lifecycle.positions(row.projectId, [row])).get(row.id) ?? null;
}

/** Entries waiting in the project's queue. */
export const waitingTotal = (store: Store, projectId: string) => store.lifecycle.waitingTotal(projectId);

/** A page of entries filtered by status and/or in queue order. */
export const queuePage = (store: Store, projectId: string, q: QueueQuery, page: PageArgs) => store.lifecycle.queuePage(projectId, q, page);

/** Live entries with referrals, most first. */
export const leaderboard = (store: Store, projectId: string, limit: number) => store.lifecycle.leaderboard(projectId, limit);
