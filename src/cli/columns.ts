// The columns each resource shows in tables and TSV rows (JSON always carries every field).
import type { ApiKey, CreatedApiKey, Entry, Project, User } from '../contract/types.js';
import { shortTime, type Column } from './output.js';

export const userColumns: Column<User>[] = [
  { header: 'USER ID', value: (u) => u.userId },
  { header: 'EMAIL', value: (u) => u.email },
  { header: 'NAME', value: (u) => u.name },
  { header: 'CREATED', value: (u) => u.createdAt, pretty: (u) => shortTime(u.createdAt) },
];

export const projectColumns: Column<Project>[] = [
  { header: 'PROJECT ID', value: (p) => p.projectId },
  { header: 'NAME', value: (p) => p.name },
  { header: 'SLUG', value: (p) => p.slug },
  { header: 'CREATED', value: (p) => p.createdAt, pretty: (p) => shortTime(p.createdAt) },
];

export const keyColumns: Column<ApiKey>[] = [
  { header: 'KEY ID', value: (k) => k.keyId },
  { header: 'NAME', value: (k) => k.name },
  { header: 'PREFIX', value: (k) => k.prefix },
  { header: 'CREATED', value: (k) => k.createdAt, pretty: (k) => shortTime(k.createdAt) },
  { header: 'LAST USED', value: (k) => k.lastUsedAt, pretty: (k) => shortTime(k.lastUsedAt) || 'never' },
  { header: 'KIND', value: (k) => k.kind },
];

/** `key create`: every key column, then the full key (shown this once). */
export const createdKeyColumns: Column<CreatedApiKey>[] = [
  ...(keyColumns as Column<CreatedApiKey>[]),
  { header: 'KEY', value: (k) => k.key },
];

export const entryColumns: Column<Entry>[] = [
  { header: 'ENTRY ID', value: (e) => e.entryId },
  { header: 'EMAIL', value: (e) => e.email },
  { header: 'NAME', value: (e) => e.name },
  { header: 'SOURCE', value: (e) => e.source },
  { header: 'COUNTRY', value: (e) => e.country },
  { header: 'CREATED', value: (e) => e.createdAt, pretty: (e) => shortTime(e.createdAt) },
  { header: 'STATUS', value: (e) => e.status },
  { header: 'POSITION', value: (e) => (e.position === null || e.position === undefined ? null : String(e.position)) },
];
