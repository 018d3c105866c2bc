// Waitlist entries: join (the public hot path), list/search, read, update, soft delete, export, stats.
import type { JoinBody, UpdateEntryBody } from '../contract/schemas.js';
import type { Stats } from '../contract/types.js';
import { lifecycleSettingsDefaults } from '../contract/settings-lifecycle.js';
import type { OutboxWrites } from '../db/outbox.js';
import {
  betweenReads,
  positionAtInsert,
  UNTOUCHED_LIFECYCLE,
  type EntryRow,
  type PageArgs,
  type ProjectRow,
  type Store,
} from '../db/store.js';
import { confirmTokenOf, emailLinks, newReferralCode, secretHash, statusTokenOf, welcomeEmail } from './lifecycle.js';
import { AppError, notFound } from './errors.js';
import { entryData, entryEvent, newEmail, sendsNotices } from './outbox.js';
import { featureSettings } from './settings.js';
import { newId } from './ids.js';
import { normEmail } from './users.js';

export const DEFAULT_SOURCE = 'landing-page';

export interface JoinContext {
  projectId: string;
  keyId: string;
  ip: string | null;
  country: string | null;
  userAgent: string | null;
  /** The project row, for its lifecycle settings (double opt-in, referral boost); defaults without it. */
  project?: ProjectRow;
  /** The base URL of the links in the entry's emails (confirmation, welcome); no emails without it. */
  base?: string;
}

/** A new entry and the secrets made for it (shown once, stored only hashed). */
/** `position`: the exact queue position at the insert when the store gave it (else undefined: ask it). */
export type JoinedEntry = EntryRow & { statusToken: string; confirmToken: string | null; position?: number | null };

/** Adds a subscriber; 409 email_taken when a live entry of the project has the same email. */
export async function joinWaitlist(store: Store, ctx: JoinContext, body: JoinBody, fields = '{}'): Promise<JoinedEntry> {
  const now = Date.now();
  const settings = ctx.project ? featureSettings(ctx.project) : lifecycleSettingsDefaults;
  const id = newId('ent');
  const pendingToken = statusTokenOf(store, id, now);
  const statusToken = typeof pendingToken === 'string' ? pendingToken : await pendingToken;
  const confirmToken = settings.doubleOptIn ? await confirmTokenOf(store, id, now) : null;
  const project = ctx.project;
  // Only a join that sends an email needs its links (and the server key they are made with).
  const emails = project && ctx.base !== undefined && (settings.doubleOptIn || featureSettings(project).welcomeEmail);
  const links = emails ? await emailLinks(store, project, ctx.base!) : null;
  const row: EntryRow = {
    id,
    projectId: ctx.projectId,
    email: body.email,
    emailNorm: normEmail(body.email),
    name: body.name ? body.name : null,
    source: body.source ?? DEFAULT_SOURCE,
    metadata: JSON.stringify(body.metadata ?? {}),
    ip: ctx.ip,
    country: ctx.country,
    userAgent: ctx.userAgent,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    fields,
    status: settings.doubleOptIn ? 'pending' : 'waiting',
    ...UNTOUCHED_LIFECYCLE, // the ordinal is given by the store inside the insert's transaction
    referralCode: newReferralCode(),
    referredBy: null, // the store resolves body.ref in the insert's transaction (an unknown ref is ignored)
    statusTokenHash: secretHash(statusToken),
    confirmTokenHash: confirmToken ? secretHash(confirmToken) : null,
    confirmSentAt: confirmToken ? now : null,
  };
  // entry.created (with its status and referredBy) is written in the join's group commit (never lost,
  // never sent for a duplicate); with double opt-in, so is the confirmation email. Built by the store
  // once the row is inserted, from the row as inserted (its referrer is resolved there).
  const outbox = (inserted: EntryRow): OutboxWrites => {
    // A pending entry is no sign-up yet (its notice follows entry.confirmed).
    const writes: OutboxWrites = {
      events: [entryEvent('entry.created', inserted.projectId, entryData(inserted), now, !confirmToken && sendsNotices(ctx.project))],
    };
    if (!project || !links) return writes;
    if (!confirmToken && featureSettings(project).welcomeEmail) writes.emails = [welcomeEmail(project.id, inserted, links(inserted), now)];
    if (confirmToken) {
      const confirmUrl = `${ctx.base}/w/${project.slug}/confirm?token=${encodeURIComponent(confirmToken)}`;
      writes.emails = [
        newEmail(
          project.id,
          'confirmation',
          inserted.email,
          { email: inserted.email, name: inserted.name, confirmUrl, ...links(inserted) },
          now,
        ),
      ];
    }
    return writes;
  };
  if ((await store.insertEntry(row, ctx.keyId, outbox, body.ref || undefined)) === 'duplicate') {
    throw new AppError('email_taken', 'This email is already on the waitlist');
  }
  // The row itself, with the secrets and position added (the batch that wrote it is done with it): a
  // copy of its 29 fields cost 14 µs a join, more than half of this function and its answer, measured
  // in-process (docs/performance.md, round twenty-four).
  return Object.assign(row, { statusToken, confirmToken, position: positionAtInsert.get(row) });
}

export const listEntries = (store: Store, projectId: string, page: PageArgs, search?: string) => store.listEntries(projectId, page, search);

export async function getEntry(store: Store, projectId: string, entryId: string) {
  const e = await store.entryInProject(projectId, entryId);
  if (!e) throw notFound('Entry');
  return e;
}

export async function updateEntry(store: Store, projectId: string, entryId: string, body: UpdateEntryBody) {
  const patch: { name?: string | null; metadata?: string } = {};
  if (body.name !== undefined) patch.name = body.name === null || body.name === '' ? null : body.name;
  if (body.metadata !== undefined) patch.metadata = JSON.stringify(body.metadata);
  const e = await store.updateEntry(projectId, entryId, patch, Date.now());
  if (!e) throw notFound('Entry');
  return e;
}

export async function deleteEntry(store: Store, projectId: string, entryId: string, _project?: ProjectRow) {
  // Through the lifecycle store: the entry leaves the queue, a counted referral is taken back, and
  // entry.deleted is written in the same transaction.
  const now = Date.now();
  const e = await store.lifecycle.softDelete(projectId, entryId, now, 0, (deleted) => ({
    events: [entryEvent('entry.deleted', projectId, entryData(deleted), now)],
  }));
  if (!e) throw notFound('Entry');
  return e;
}

/**
 * Every live entry, newest first, in keyset chunks (arrays, not single rows: a million awaits is a
 * second of an export), so memory stays flat. On PostgreSQL the next chunk is asked for as soon as
 * one arrives, so the database reads it while this process formats and sends the one before (one
 * chunk ahead at most). On SQLite a read runs on this thread when it is asked for: asking early would
 * only hold one more chunk in memory.
 */
export async function* iterateEntryChunks(store: Store, projectId: string, search?: string, chunk = 1000) {
  const read = (before: string | null) => store.entriesBefore(projectId, before, chunk, search);
  const ahead = store.dialect === 'pg';
  let next = read(null);
  for (;;) {
    const rows = await next;
    const more = rows.length === chunk;
    if (more && ahead) {
      next = read(rows[rows.length - 1]!.id);
      next.catch(() => undefined); // awaited above on the next turn; an export stopped early never does
    }
    if (rows.length) yield rows;
    if (!more) return;
    if (!ahead) {
      await betweenReads(store);
      next = read(rows[rows.length - 1]!.id);
    }
  }
}

const DAY_MS = 86_400_000;

/** Totals, the last 30 UTC days (oldest first, zero days included), top sources and countries. */
export async function projectStats(store: Store, projectId: string, now = Date.now()): Promise<Stats> {
  const today = Math.floor(now / DAY_MS);
  const first = today - 29;
  const [rows, counts] = await Promise.all([store.stats(projectId, first), store.lifecycle.statusCounts(projectId)]);
  const { referred, ...byStatus } = counts;
  const byDay = new Map(rows.perDay.map((r) => [r.day, r.count]));
  const perDay = Array.from({ length: 30 }, (_, i) => ({
    date: new Date((first + i) * DAY_MS).toISOString().slice(0, 10),
    count: byDay.get(first + i) ?? 0,
  }));
  const sumFrom = (day: number) => perDay.slice(day - first).reduce((n, d) => n + d.count, 0);
  return {
    total: rows.total,
    today: sumFrom(today),
    last7Days: sumFrom(today - 6),
    perDay,
    topSources: rows.topSources,
    topCountries: rows.topCountries,
    byStatus,
    referred,
  };
}
