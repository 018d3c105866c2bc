// Waitlist entries: join (the public hot path), list/search, read, update, soft delete, export, stats.
import type { JoinBody, UpdateEntryBody } from '../contract/schemas.js';
import type { Stats } from '../contract/types.js';
import type { EntryRow, PageArgs, Store } from '../db/store.js';
import { AppError, notFound } from './errors.js';
import { newId } from './ids.js';
import { normEmail } from './users.js';

export const DEFAULT_SOURCE = 'landing-page';

export interface JoinContext {
  projectId: string;
  keyId: string;
  ip: string | null;
  country: string | null;
  userAgent: string | null;
}

/** Adds a subscriber; 409 email_taken when a live entry of the project has the same email. */
export async function joinWaitlist(store: Store, ctx: JoinContext, body: JoinBody, fields = '{}'): Promise<EntryRow> {
  const now = Date.now();
  const row: EntryRow = {
    id: newId('ent'),
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
  };
  if ((await store.insertEntry(row, ctx.keyId)) === 'duplicate') {
    throw new AppError('email_taken', 'This email is already on the waitlist');
  }
  return row;
}

export const listEntries = (store: Store, projectId: string, page: PageArgs, search?: string) =>
  store.listEntries(projectId, page, search);

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

export async function deleteEntry(store: Store, projectId: string, entryId: string) {
  const e = await store.softDeleteEntry(projectId, entryId, Date.now());
  if (!e) throw notFound('Entry');
  return e;
}

/** Every live entry, newest first, in keyset chunks (arrays, not single rows: a million awaits is a
 * second of an export), so memory stays flat. */
export async function* iterateEntryChunks(store: Store, projectId: string, search?: string, chunk = 1000) {
  let before: string | null = null;
  for (;;) {
    const rows = await store.entriesBefore(projectId, before, chunk, search);
    if (rows.length) yield rows;
    if (rows.length < chunk) return;
    before = rows[rows.length - 1]!.id;
  }
}

const DAY_MS = 86_400_000;

/** Totals, the last 30 UTC days (oldest first, zero days included), top sources and countries. */
export async function projectStats(store: Store, projectId: string, now = Date.now()): Promise<Stats> {
  const today = Math.floor(now / DAY_MS);
  const first = today - 29;
  const rows = await store.stats(projectId, first);
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
  };
}
