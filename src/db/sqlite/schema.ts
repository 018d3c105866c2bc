// SQLite schema (drizzle). Table and column names match src/db/pg/schema.ts. `entry_counts` (live
// entries per project, kept by triggers) exists on both dialects (PostgreSQL: sharded rows, in
// migrations/pg/0002_entry_counts.sql). SQLite only: the FTS5 trigram index `entries_fts` and its
// triggers, in a hand-written migration (drizzle cannot model them).
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  emailNorm: text('email_norm').notNull().unique(),
  name: text('name'),
  passwordHash: text('password_hash').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

export const sessions = sqliteTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export const projects = sqliteTable(
  'projects',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    slug: text('slug').notNull().unique(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    deletedAt: integer('deleted_at'),
    // Join-route settings (GET/PUT /api/project/:id/settings): JSON array of origins, null = any.
    allowedOrigins: text('allowed_origins'),
    blockDisposable: integer('block_disposable', { mode: 'boolean' }).notNull().default(false),
    honeypotField: text('honeypot_field'),
    // The feature layers' settings (src/contract/settings-*.ts) as one JSON object.
    settings: text('settings').notNull().default('{}'),
  },
  (t) => [index('projects_user_idx').on(t.userId, t.id)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    lookup: text('lookup').notNull().unique(),
    prefix: text('prefix').notNull(),
    secretHash: text('secret_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
    kind: text('kind').$type<'publishable' | 'secret'>().notNull().default('publishable'),
  },
  (t) => [index('api_keys_project_idx').on(t.projectId, t.id)],
);

export const entries = sqliteTable(
  'entries',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    emailNorm: text('email_norm').notNull(),
    name: text('name'),
    source: text('source').notNull(),
    metadata: text('metadata').notNull(),
    ip: text('ip'),
    country: text('country'),
    userAgent: text('user_agent'),
    // Answers to the project's custom fields (settings `fields`), a JSON object; `{}` when none.
    fields: text('fields').notNull().default('{}'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    deletedAt: integer('deleted_at'),
    // The lifecycle (migrations/sqlite/0006_lifecycle.sql): status, queue order, referrals, hashed tokens.
    status: text('status').$type<'pending' | 'waiting' | 'invited' | 'accepted'>().notNull().default('waiting'),
    ordinal: integer('ordinal').notNull().default(0),
    k: integer('k').notNull().default(0),
    referralCode: text('referral_code'),
    referredBy: text('referred_by'),
    referrals: integer('referrals').notNull().default(0),
    statusTokenHash: text('status_token_hash'),
    confirmTokenHash: text('confirm_token_hash'),
    confirmSentAt: integer('confirm_sent_at'),
    confirmResentAt: integer('confirm_resent_at'),
    confirmedAt: integer('confirmed_at'),
    invitedAt: integer('invited_at'),
    acceptedAt: integer('accepted_at'),
    inviteCodeHash: text('invite_code_hash'),
    inviteExpiresAt: integer('invite_expires_at'),
  },
  (t) => [
    uniqueIndex('entries_referral_code_uq').on(t.projectId, t.referralCode),
    uniqueIndex('entries_status_token_uq').on(t.statusTokenHash),
    uniqueIndex('entries_confirm_token_uq').on(t.confirmTokenHash).where(sql`${t.confirmTokenHash} IS NOT NULL`),
    uniqueIndex('entries_invite_code_uq').on(t.inviteCodeHash).where(sql`${t.inviteCodeHash} IS NOT NULL`),
    index('entries_queue_idx').on(t.projectId, t.status, t.k, t.ordinal).where(sql`${t.deletedAt} IS NULL`),
    index('entries_referrals_idx').on(t.projectId, t.referrals, t.ordinal).where(sql`${t.deletedAt} IS NULL AND ${t.referrals} > 0`),
    index('entries_pending_idx').on(t.status, t.createdAt).where(sql`${t.deletedAt} IS NULL AND ${t.status} = 'pending'`),
    // One live entry per (project, normalised email): the database, not the code, settles races.
    uniqueIndex('entries_live_email_uq').on(t.projectId, t.emailNorm).where(sql`${t.deletedAt} IS NULL`),
    // Newest-first listing of live entries (ids are time-sortable).
    index('entries_live_list_idx').on(t.projectId, t.id).where(sql`${t.deletedAt} IS NULL`),
  ],
);

// Live (non-deleted) entries per project, maintained by triggers (migrations/sqlite/*_search_index.sql)
// so the unfiltered list total is one indexed read instead of a COUNT(*) over a million rows.
export const entryCounts = sqliteTable('entry_counts', {
  projectId: text('project_id').primaryKey(),
  live: integer('live').notNull(),
});

// The next join ordinal per project (the last one given); ordinals are never reused.
export const entryOrdinals = sqliteTable('entry_ordinals', {
  projectId: text('project_id').primaryKey(),
  last: integer('last').notNull(),
});

// Waiting entries per project and 1024-wide bucket of the sort key k (k >> 10), kept by triggers
// (migrations/sqlite/0006_lifecycle.sql): exact positions without counting everyone ahead.
export const positionBuckets = sqliteTable(
  'position_buckets',
  {
    projectId: text('project_id').notNull(),
    bucket: integer('bucket').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.bucket] })],
);
export * from './schema-events.js';
// Sign-up surface (migrations/sqlite/0007_surface.sql): server-wide secrets (the captcha HMAC key, so
// every instance agrees) and used captcha solutions (one use each, kept until the challenge expires;
// no key on the signature since migration 0018: the server checks them in memory, see surface.ts).
export const serverSecrets = sqliteTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: integer('created_at').notNull(),
});
export const captchaSolutions = sqliteTable(
  'captcha_solutions',
  {
    signature: text('signature').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('captcha_solutions_expires_idx').on(t.expiresAt)],
);
