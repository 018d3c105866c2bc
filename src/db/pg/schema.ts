// PostgreSQL schema (drizzle). Table and column names match src/db/sqlite/schema.ts; times are epoch ms.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, smallint, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  emailNorm: text('email_norm').notNull().unique(),
  name: text('name'),
  passwordHash: text('password_hash').notNull(),
  createdAt: ms('created_at').notNull(),
  updatedAt: ms('updated_at').notNull(),
});

export const sessions = pgTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: ms('created_at').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export const projects = pgTable(
  'projects',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    slug: text('slug').notNull().unique(),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
    deletedAt: ms('deleted_at'),
    // Join-route settings (GET/PUT /api/project/:id/settings): JSON array of origins, null = any.
    allowedOrigins: text('allowed_origins'),
    blockDisposable: boolean('block_disposable').notNull().default(false),
    honeypotField: text('honeypot_field'),
    // The feature layers' settings (src/contract/settings-*.ts) as one JSON object.
    settings: text('settings').notNull().default('{}'),
  },
  (t) => [index('projects_user_idx').on(t.userId, t.id)],
);

export const apiKeys = pgTable(
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
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
    lastUsedAt: ms('last_used_at'),
    revokedAt: ms('revoked_at'),
    kind: text('kind').$type<'publishable' | 'secret'>().notNull().default('publishable'),
  },
  (t) => [index('api_keys_project_idx').on(t.projectId, t.id)],
);

export const entries = pgTable(
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
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
    deletedAt: ms('deleted_at'),
    // The lifecycle (migrations/pg/0005_lifecycle.sql): status, queue order, referrals, hashed tokens.
    status: text('status').$type<'pending' | 'waiting' | 'invited' | 'accepted'>().notNull().default('waiting'),
    ordinal: ms('ordinal').notNull().default(0),
    k: ms('k').notNull().default(0),
    referralCode: text('referral_code'),
    referredBy: text('referred_by'),
    referrals: integer('referrals').notNull().default(0),
    statusTokenHash: text('status_token_hash'),
    confirmTokenHash: text('confirm_token_hash'),
    confirmSentAt: ms('confirm_sent_at'),
    confirmResentAt: ms('confirm_resent_at'),
    confirmedAt: ms('confirmed_at'),
    invitedAt: ms('invited_at'),
    acceptedAt: ms('accepted_at'),
    inviteCodeHash: text('invite_code_hash'),
    inviteExpiresAt: ms('invite_expires_at'),
  },
  (t) => [
    uniqueIndex('entries_referral_code_uq').on(t.projectId, t.referralCode),
    uniqueIndex('entries_status_token_uq').on(t.statusTokenHash),
    uniqueIndex('entries_confirm_token_uq').on(t.confirmTokenHash).where(sql`${t.confirmTokenHash} IS NOT NULL`),
    uniqueIndex('entries_invite_code_uq').on(t.inviteCodeHash).where(sql`${t.inviteCodeHash} IS NOT NULL`),
    index('entries_queue_idx').on(t.projectId, t.status, t.k, t.ordinal).where(sql`${t.deletedAt} IS NULL`),
    index('entries_referrals_idx').on(t.projectId, t.referrals, t.ordinal).where(sql`${t.deletedAt} IS NULL AND ${t.referrals} > 0`),
    index('entries_pending_idx').on(t.status, t.createdAt).where(sql`${t.deletedAt} IS NULL AND ${t.status} = 'pending'`),
    // One live entry per (project, normalised email): the database settles races across instances.
    uniqueIndex('entries_live_email_uq').on(t.projectId, t.emailNorm).where(sql`${t.deletedAt} IS NULL`),
    index('entries_live_list_idx').on(t.projectId, t.id).where(sql`${t.deletedAt} IS NULL`),
  ],
);

/**
 * What search reads of an entry, kept by triggers on `entries` (migrations/pg/0008_search_table.sql),
 * with the trigram indexes: an UPDATE of `entries` that leaves email and name alone writes nothing here.
 */
export const entrySearch = pgTable(
  'entry_search',
  {
    entryId: text('entry_id').primaryKey(),
    projectId: text('project_id').notNull(),
    emailNorm: text('email_norm').notNull(),
    name: text('name'),
    live: boolean('live').notNull(),
  },
  (t) => [
    // Substring search (LIKE '%q%') through trigrams; needs CREATE EXTENSION pg_trgm (0000_init.sql).
    index('entry_search_email_trgm_idx').using('gin', sql`${t.emailNorm} gin_trgm_ops`),
    index('entry_search_name_trgm_idx').using('gin', sql`lower(${t.name}) gin_trgm_ops`),
  ],
);

// Live (non-deleted) entries per project, kept by statement-level triggers (hand-written in
// migrations/pg/0002_entry_counts.sql, with the functions drizzle cannot model): the unfiltered list
// total and the stats total are one indexed read. 16 shards per project so concurrent commits on
// several instances update different rows; a project's count is the sum of its shards.
export const entryCounts = pgTable(
  'entry_counts',
  {
    projectId: text('project_id').notNull(),
    shard: smallint('shard').notNull(),
    live: bigint('live', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.shard] })],
);

// Shared rate-limit counters (rate-limiter-flexible's RateLimiterPostgres layout), so limits hold
// across instances. Created here rather than by the library to avoid a CREATE TABLE race at start.
export const rateLimits = pgTable('rate_limits', {
  key: varchar('key', { length: 255 }).primaryKey(),
  points: integer('points').notNull().default(0),
  expire: bigint('expire', { mode: 'number' }),
});

// The last join ordinal given per project; its row lock serialises queue writes of a project.
export const entryOrdinals = pgTable('entry_ordinals', {
  projectId: text('project_id').primaryKey(),
  last: ms('last').notNull(),
});

// Waiting entries per project and 1024-wide bucket of k (k >> 10), kept by statement-level triggers
// (migrations/pg/0005_lifecycle.sql): exact positions without counting everyone ahead.
export const positionBuckets = pgTable(
  'position_buckets',
  {
    projectId: text('project_id').notNull(),
    bucket: ms('bucket').notNull(),
    n: ms('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.bucket] })],
);

// The same counts summed per group of 64 buckets (bucket >> 6), kept by the same trigger function
// (migrations/pg/0009_position_groups.sql): the waiting total and the buckets below a position in a
// few rows.
export const positionGroups = pgTable(
  'position_groups',
  {
    projectId: text('project_id').notNull(),
    grp: ms('grp').notNull(),
    n: ms('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.grp] })],
);
export * from './schema-events.js';
// Sign-up surface (migrations/pg/0006_surface.sql): server-wide secrets (the captcha HMAC key, so every
// instance agrees) and used captcha solutions (one use each, kept until the challenge expires).
export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: ms('created_at').notNull(),
});
export const captchaSolutions = pgTable(
  'captcha_solutions',
  {
    signature: text('signature').primaryKey(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [index('captcha_solutions_expires_idx').on(t.expiresAt)],
);
