// One imported record → an entry row, or the reason it cannot be one.
import { randomFillSync } from 'node:crypto';
import { isIP } from 'node:net';
import { joinBody, LIMITS, metadataSchema } from '../../contract/schemas.js';
import type { FieldDefinition } from '../../contract/settings-surface.js';
import { type EntryRow, UNTOUCHED_LIFECYCLE } from '../../db/store.js';
import { checkFields } from '../fields.js';
import { idAt } from '../ids.js';
import { REFERRAL_CODE_BYTES, timePrefix } from '../lifecycle.js';
import { normEmail } from '../users.js';
import type { Target } from './columns.js';
import { lonePaths, wellFormed } from '../text.js';
import { parseDate, type SlashOrder } from './dates.js';

// Referral codes as newReferralCode makes them (the time prefix and 6 CSPRNG bytes, base64url), the
// bytes cut from a pool filled 4,096 codes at a time: one randomBytes call per row was 7 % of a
// 100k-row import's CPU.
const pool = Buffer.alloc(REFERRAL_CODE_BYTES * 4096);
let used = pool.length;
function referralCode(): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += REFERRAL_CODE_BYTES;
  return timePrefix() + pool.toString('base64url', used - REFERRAL_CODE_BYTES, used);
}

export const IMPORT_SOURCE = 'import';
export const STATUSES = ['pending', 'waiting', 'invited', 'accepted'] as const;

/** A record's values by meaning (strings from CSV; any JSON value from NDJSON). */
export interface Picked {
  email?: unknown;
  name?: unknown;
  first?: unknown;
  last?: unknown;
  source?: unknown;
  metadata?: unknown;
  fields?: Record<string, unknown>;
  createdAt?: unknown;
  status?: unknown;
  ip?: unknown;
  country?: unknown;
  userAgent?: unknown;
  removed?: unknown;
  extra?: Record<string, unknown>;
}

// This server's CSV export puts a ' before free text that a spreadsheet would run as a formula.
const unescapeCell = (s: string) => (s.length > 1 && s[0] === "'" && /^[=+\-@\t\r]/.test(s.slice(1)) ? s.slice(1) : s);
const present = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

/** Gathers a record's values by the targets of its columns. */
export function pick(targets: readonly Target[], values: readonly unknown[]): Picked {
  const p: Picked = {};
  targets.forEach((t, i) => {
    let v = values[i];
    if (!present(v)) return;
    if (typeof v === 'string') v = unescapeCell(v);
    if (t.kind === 'field') {
      p.fields ??= {};
      p.fields[t.key] = v;
    } else if (t.kind === 'extra') {
      p.extra ??= {};
      p.extra[t.name] = v;
    } else if (t.kind === 'fields') {
      const obj = typeof v === 'string' ? tryJson(v) : v;
      if (obj && typeof obj === 'object' && !Array.isArray(obj)) p.fields = { ...(obj as Record<string, unknown>), ...p.fields };
      else {
        p.extra ??= {};
        p.extra.fields = v;
      }
    } else if (t.kind !== 'ignore') p[t.kind] = v;
  });
  return p;
}

function tryJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

export type RowResult = { row: EntryRow } | { error: string };

/**
 * Why a text cell cannot be stored as it is, as the join refuses it (validateBody): a NUL (PostgreSQL's
 * text refuses it, and would fail the whole batch) or an unpaired UTF-16 surrogate (not UTF-8).
 */
function unstorable(field: string, v: string | null | undefined): string | undefined {
  if (!v) return undefined;
  if (v.includes('\0')) return `${field}: must not contain NUL characters`;
  if (!wellFormed(v)) return `${field}: must not contain unpaired UTF-16 surrogates`;
  return undefined;
}

/**
 * Builds the entry row of one picked record. `now` is the import's time, `order` the settled slash-date
 * order, `line` the record's line in its file (it orders the ids of rows of the same millisecond).
 */
export function toRow(
  projectId: string,
  p: Picked,
  defs: readonly FieldDefinition[],
  order: SlashOrder | null,
  now: number,
  line: number,
): RowResult {
  if (present(p.removed)) return { error: `Removed on the previous tool (${text(p.removed)}): not imported` };
  if (!present(p.email)) return { error: 'No email' };
  const email = joinBody.shape.email.safeParse(text(p.email) ?? '');
  if (!email.success) return { error: `Invalid email "${String(text(p.email)).slice(0, 80)}"` };
  const name = text(p.name) ?? ([text(p.first), text(p.last)].filter(Boolean).join(' ') || null);
  if (name && name.length > LIMITS.entryNameChars) return { error: `Name is longer than ${LIMITS.entryNameChars} characters` };
  const source = text(p.source) ?? IMPORT_SOURCE;
  if (source.length > LIMITS.sourceChars) return { error: `Source is longer than ${LIMITS.sourceChars} characters` };
  let createdAt = now;
  if (present(p.createdAt)) {
    // A JSON number reads as the same Unix time written as text: 10 digits seconds, 13 milliseconds.
    if (typeof p.createdAt === 'number' && !Number.isSafeInteger(p.createdAt))
      return { error: 'createdAt: a number must be a whole Unix time (10 digits: seconds, 13: milliseconds)' };
    const d = parseDate(String(text(p.createdAt)), order);
    if ('error' in d) return { error: `createdAt: ${d.error}` };
    createdAt = d.ms;
  }
  let status: (typeof STATUSES)[number] = 'waiting';
  if (present(p.status)) {
    const s = String(text(p.status)).toLowerCase();
    if (!(STATUSES as readonly string[]).includes(s)) return { error: `status must be one of ${STATUSES.join(', ')}` };
    status = s as (typeof STATUSES)[number];
  }
  let metadata: Record<string, unknown> = {};
  if (present(p.metadata)) {
    const m = typeof p.metadata === 'string' ? tryJson(p.metadata) : p.metadata;
    if (!m || typeof m !== 'object' || Array.isArray(m)) return { error: 'metadata must be a JSON object' };
    metadata = { ...(m as Record<string, unknown>) };
  }
  if (p.extra) for (const [k, v] of Object.entries(p.extra)) if (!Object.hasOwn(metadata, k)) metadata[k] = v;
  const meta = metadataSchema.safeParse(metadata);
  if (!meta.success) return { error: meta.error.issues[0]?.message ?? 'Invalid metadata' };
  // Unpaired surrogates in metadata and field answers, keys included, named as the join names them;
  // NUL is refused only in top-level text (unstorable), as the join does: metadata may hold it.
  const lone = lonePaths(metadata, 'metadata')[0] ?? lonePaths(p.fields, 'fields')[0];
  if (lone) return { error: `${lone}: must not contain unpaired UTF-16 surrogates` };
  // Answers are checked for type and options, not for `required`: imported people never saw the form.
  const { values, issues } = checkFields(
    defs.map((d) => ({ ...d, required: false })),
    p.fields,
  );
  if (issues.length) return { error: issues.map((i) => `${i.path}: ${i.message}`).join('; ') };
  const ip = text(p.ip);
  const country = text(p.country);
  const ua = text(p.userAgent);
  const bad = unstorable('name', name) ?? unstorable('source', source) ?? unstorable('userAgent', ua);
  if (bad) return { error: bad };
  return {
    row: {
      id: idAt('ent', createdAt, line),
      projectId,
      email: email.data,
      emailNorm: normEmail(email.data),
      name: name || null,
      source,
      metadata: JSON.stringify(metadata),
      ip: ip && isIP(ip) ? ip : null,
      country: country && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null,
      userAgent: ua ? ua.slice(0, 512) : null,
      createdAt,
      updatedAt: now,
      deletedAt: null,
      fields: JSON.stringify(values),
      // Lifecycle: a queue place is given by the store (ordinals in createdAt order); no status token
      // (imported people never got one), a fresh referral code.
      ...UNTOUCHED_LIFECYCLE,
      status,
      referralCode: referralCode(),
      confirmedAt: status === 'pending' ? null : createdAt,
      invitedAt: status === 'invited' || status === 'accepted' ? createdAt : null,
      acceptedAt: status === 'accepted' ? createdAt : null,
    },
  };
}
