// Database rows → the contract's response shapes. Hashes and internal columns never leave here.
import type { ApiKey, Entry, Project, User } from '../contract/types.js';
import type { EntryRow, KeyRow, ProjectRow, UserRow } from '../db/store.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export const toUser = (u: UserRow): User => ({
  userId: u.id,
  email: u.email,
  name: u.name,
  createdAt: iso(u.createdAt),
});

export const toProject = (p: ProjectRow): Project => ({
  projectId: p.id,
  name: p.name,
  slug: p.slug,
  createdAt: iso(p.createdAt),
  updatedAt: iso(p.updatedAt),
});

export const toKey = (k: KeyRow): ApiKey => ({
  keyId: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: iso(k.createdAt),
  lastUsedAt: isoOrNull(k.lastUsedAt),
  kind: k.kind,
});

/** The management API's entry; `position` is computed by the caller (core/lifecycle.ts withPositions). */
export const toEntry = (e: EntryRow, position: number | null = null): Entry => ({
  entryId: e.id,
  email: e.email,
  name: e.name,
  source: e.source,
  metadata: JSON.parse(e.metadata) as Record<string, unknown>,
  ip: e.ip,
  country: e.country,
  userAgent: e.userAgent,
  createdAt: iso(e.createdAt),
  updatedAt: iso(e.updatedAt),
  status: e.status,
  position: e.status === 'waiting' ? position : null,
  referralCode: e.referralCode,
  referredBy: e.referredBy,
  referrals: e.referrals,
  confirmedAt: isoOrNull(e.confirmedAt),
  invitedAt: isoOrNull(e.invitedAt),
  acceptedAt: isoOrNull(e.acceptedAt),
  fields: JSON.parse(e.fields ?? '{}') as Record<string, unknown>,
});

/** Adds `deletedAt` to a soft-deleted resource's representation. */
export const withDeletedAt = <T>(value: T, deletedAt: number | null) => ({
  ...value,
  deletedAt: isoOrNull(deletedAt),
});
