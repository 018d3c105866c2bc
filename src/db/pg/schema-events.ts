// PostgreSQL schema of the events layer (migrations/pg/0004_events.sql); mirrors
// src/db/sqlite/schema-events.ts. Times are epoch ms.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { projects } from './schema.js';

const ms = (name: string) => bigint(name, { mode: 'number' });

export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').notNull(),
    secret: text('secret').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
    // After a rotation, the replaced secret signs too until it expires (migrations/pg/0011).
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: ms('previous_secret_expires_at'),
  },
  (t) => [index('webhooks_project_idx').on(t.projectId, t.id)],
);

export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    type: text('type').notNull(),
    payload: text('payload').notNull(),
    createdAt: ms('created_at').notNull(),
    fannedOut: boolean('fanned_out').notNull().default(false),
  },
  // No index on created_at: the prune finds old events by id (migration 0012).
  (t) => [index('events_unfanned_idx').on(t.id).where(sql`${t.fannedOut} = false`)],
);

export const deliveries = pgTable(
  'deliveries',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    kind: text('kind').notNull(),
    webhookId: text('webhook_id'),
    eventId: text('event_id'),
    type: text('type').notNull(),
    recipient: text('recipient'),
    data: text('data'),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    nextAttemptAt: ms('next_attempt_at'),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [
    // The dispatcher's claims, by destination (migration 0013): a webhook's due deliveries, a project's due emails.
    index('deliveries_hook_due_idx').on(t.webhookId, t.nextAttemptAt).where(sql`${t.status} = 'pending' AND ${t.webhookId} IS NOT NULL`),
    index('deliveries_mail_due_idx').on(t.projectId, t.nextAttemptAt).where(sql`${t.status} = 'pending' AND ${t.webhookId} IS NULL`),
    index('deliveries_webhook_idx').on(t.webhookId, t.id),
    index('deliveries_project_kind_idx').on(t.projectId, t.kind, t.id),
    index('deliveries_updated_idx').on(t.updatedAt),
    index('deliveries_event_idx').on(t.eventId),
  ],
);

export const emailTemplates = pgTable(
  'email_templates',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    subject: text('subject'),
    text: text('text'),
    html: text('html'),
    updatedAt: ms('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);
