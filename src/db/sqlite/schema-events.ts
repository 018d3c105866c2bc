// SQLite schema of the events layer (migrations/sqlite/0005_events.sql): webhooks, the outbox of
// events, deliveries (webhook attempts and queued emails) and per-project email templates.
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { projects } from './schema.js';

export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').notNull(), // JSON array of event types
    secret: text('secret').notNull(), // whsec_…: needed to sign, never returned after create
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    // After a rotation, the replaced secret signs too until it expires (migrations/sqlite/0014).
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: integer('previous_secret_expires_at'),
  },
  (t) => [index('webhooks_project_idx').on(t.projectId, t.id)],
);

export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    type: text('type').notNull(),
    payload: text('payload').notNull(), // the exact JSON body that is signed and sent
    createdAt: integer('created_at').notNull(),
    fannedOut: integer('fanned_out', { mode: 'boolean' }).notNull().default(false),
  },
  // No index on created_at: the prune finds old events by id (migration 0015).
  (t) => [index('events_unfanned_idx').on(t.id).where(sql`${t.fannedOut} = 0`)],
);

export const deliveries = sqliteTable(
  'deliveries',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    kind: text('kind').notNull(), // 'webhook' | 'email'
    webhookId: text('webhook_id'),
    eventId: text('event_id'),
    type: text('type').notNull(), // event type, or email template name
    recipient: text('recipient'),
    data: text('data'), // email variables (JSON, may hold links with tokens): cleared once sent
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    nextAttemptAt: integer('next_attempt_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    // The dispatcher's claims, by destination (migration 0016): a webhook's due deliveries, a project's due emails.
    index('deliveries_hook_due_idx').on(t.webhookId, t.nextAttemptAt).where(sql`${t.status} = 'pending' AND ${t.webhookId} IS NOT NULL`),
    index('deliveries_mail_due_idx').on(t.projectId, t.nextAttemptAt).where(sql`${t.status} = 'pending' AND ${t.webhookId} IS NULL`),
    index('deliveries_webhook_idx').on(t.webhookId, t.id),
    index('deliveries_email_idx').on(t.projectId, t.id).where(sql`${t.kind} = 'email'`), // migration 0013
    index('deliveries_done_idx').on(t.updatedAt).where(sql`${t.status} <> 'pending'`),
    index('deliveries_event_idx').on(t.eventId),
  ],
);

export const emailTemplates = sqliteTable(
  'email_templates',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    subject: text('subject'),
    text: text('text'),
    html: text('html'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);
