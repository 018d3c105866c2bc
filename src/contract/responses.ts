// The response shapes of the contract as zod schemas, for the OpenAPI document (src/server/openapi/).
// The TypeScript types in types.ts stay what code uses; the checks at the bottom fail the build when a
// schema here and its type there disagree, so changing a response means changing both.
import { z } from 'zod';
import type { ApiKey, AuthStatus, CreatedApiKey, Entry, JoinResult, Project, Stats, User } from './types.js';
import { eventSettingsShape } from './settings-events.js';
import { lifecycleSettingsShape } from './settings-lifecycle.js';
import { surfaceSettingsShape } from './settings-surface.js';
import { ERROR_STATUS, type ErrorCode } from './types.js';
import type { ProjectSettings } from './schemas.js';
import {
  EMAIL_TEMPLATES,
  EVENT_TYPES,
  type Delivery,
  type EmailLogItem,
  type RenderedEmail,
  type Templates,
  type Webhook,
  type WebhookCreated,
  type WebhookRotated,
} from './events.js';
import {
  ENTRY_STATUSES,
  type InviteCheck,
  type InvitePreview,
  type InviteResult,
  type LeaderboardEntry,
  type PublicEntry,
  type PublicLeader,
  type RedeemResult,
} from './lifecycle.js';
import { FIELD_TYPES, type FieldDefinition } from './settings-surface.js';

const iso = z.iso.datetime({ offset: false }).describe('ISO-8601 UTC time');
const isoOrNull = iso.nullable();
const id = (prefix: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9A-Za-z]+$`))
    .describe(`Opaque id, \`${prefix}_…\``);

export const userSchema = z
  .object({ userId: id('usr'), email: z.string(), name: z.string().nullable(), createdAt: iso })
  .meta({ id: 'User' });

/** GET /auth/status `data`. */
export const authStatusSchema = z
  .object({
    signupOpen: z.boolean().describe('Whether POST /api/auth/signup would accept a new account now'),
    hasUsers: z.boolean(),
    signedIn: z.boolean().describe('Whether the request carried a live session cookie (the dashboard then asks /api/auth/me)'),
  })
  .meta({ id: 'AuthStatus' });

/** GET /readyz `data` (200 only; not ready answers 503 service_unavailable naming the failing check). */
export const readinessSchema = z.object({
  status: z.literal('ready'),
  checks: z.array(z.object({ name: z.string(), ok: z.boolean(), reason: z.string().optional(), ms: z.number() })),
});

export const projectSchema = z
  .object({ projectId: id('prj'), name: z.string(), slug: z.string(), createdAt: iso, updatedAt: iso })
  .meta({ id: 'Project' });

export const apiKeySchema = z
  .object({
    keyId: id('key'),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key, to recognise it (e.g. `wl_3fK9a2Qe`)'),
    createdAt: iso,
    lastUsedAt: isoOrNull,
    kind: z.enum(['publishable', 'secret']).describe('`publishable` (joins only) or `secret` (also the server-to-server routes)'),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().describe('The full key: shown in this response only, never again') })
  .meta({ id: 'CreatedApiKey' });

const entryStatus = z.enum(ENTRY_STATUSES);

export const entrySchema = z
  .object({
    entryId: id('ent'),
    email: z.string(),
    name: z.string().nullable(),
    source: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    ip: z.string().nullable(),
    country: z.string().nullable().describe('ISO 3166-1 alpha-2 code derived offline from the IP, when public'),
    userAgent: z.string().nullable(),
    createdAt: iso,
    updatedAt: iso,
    fields: z.record(z.string(), z.unknown()).describe("Answers to the project's custom fields"),
    status: entryStatus,
    position: z.int().min(1).nullable().describe('1-based rank in the queue while waiting, else null'),
    referralCode: z.string().nullable(),
    referredBy: z.string().nullable(),
    referrals: z.int().min(0),
    confirmedAt: isoOrNull,
    invitedAt: isoOrNull,
    acceptedAt: isoOrNull,
  })
  .meta({ id: 'Entry' });

/** POST /v1/waitlist/:slug/join `data` (built by core/serialize.ts `toJoinResult`). */
export const joinResultSchema = z
  .object({
    entryId: id('ent'),
    email: z.string(),
    name: z.string().nullable(),
    source: z.string(),
    createdAt: iso,
    fields: z.record(z.string(), z.unknown()).optional(),
    status: entryStatus.optional(),
    position: z.int().min(1).nullable().optional(),
    referralCode: z.string().optional(),
    referralUrl: z.string().optional(),
    statusToken: z.string().optional().describe('Lets the subscriber see their status and leave (shown once)'),
  })
  .meta({ id: 'JoinResult' });

const count = z.int().min(0);
export const statsSchema = z
  .object({
    total: count,
    today: count,
    last7Days: count,
    perDay: z.array(z.object({ date: z.iso.date(), count })).describe('The last 30 UTC days, oldest first, zero days included'),
    topSources: z.array(z.object({ source: z.string(), count })).max(10),
    topCountries: z.array(z.object({ country: z.string(), count })).max(10),
    byStatus: z.object({ pending: count, waiting: count, invited: count, accepted: count }).optional(),
    referred: count.optional().describe('Entries that came through a referral'),
  })
  .meta({ id: 'Stats' });

// ---- events layer: webhooks, deliveries, the email log, templates ----

export const webhookSchema = z
  .object({
    webhookId: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    enabled: z.boolean(),
    createdAt: iso,
    updatedAt: iso,
  })
  .meta({ id: 'Webhook' });

export const webhookCreatedSchema = webhookSchema
  .extend({ secret: z.string().describe('The `whsec_…` signing secret: shown in this response only, never again') })
  .meta({ id: 'WebhookCreated' });

export const webhookRotatedSchema = webhookCreatedSchema
  .extend({
    previousSecretExpiresAt: isoOrNull.describe(
      'Until when the replaced secret signs beside the new one; null when it was dropped at once',
    ),
  })
  .meta({ id: 'WebhookRotated' });

const deliveryStatus = z.enum(['pending', 'delivered', 'failed']);
const attemptFields = {
  status: deliveryStatus,
  attempts: count,
  lastStatusCode: z.int().nullable().describe('HTTP status (or SMTP code) of the last attempt'),
  lastError: z.string().nullable(),
  nextAttemptAt: isoOrNull.describe('When the next retry is due; null once delivered or given up'),
  createdAt: iso,
  updatedAt: iso,
};

export const deliverySchema = z
  .object({
    deliveryId: z.string(),
    eventId: z.string(),
    type: z.string().describe('The event type, or `ping` for a test'),
    ...attemptFields,
  })
  .meta({ id: 'Delivery' });

export const emailLogItemSchema = z
  .object({ emailId: z.string(), template: z.string(), to: z.string(), ...attemptFields })
  .meta({ id: 'EmailLogItem' });

const templateViewSchema = z
  .object({
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    custom: z.boolean().describe('true when the project changed any part of it'),
  })
  .meta({ id: 'TemplateView' });

export const templatesSchema = z
  .object(
    Object.fromEntries(EMAIL_TEMPLATES.map((n) => [n, templateViewSchema])) as Record<
      (typeof EMAIL_TEMPLATES)[number],
      typeof templateViewSchema
    >,
  )
  .meta({ id: 'Templates' });

export const renderedEmailSchema = z.object({ subject: z.string(), text: z.string(), html: z.string() }).meta({ id: 'RenderedEmail' });

// ---- lifecycle layer: subscriber views, invites, leaderboards ----

export const publicStatusSchema = z
  .object({
    email: z.string(),
    name: z.string().nullable(),
    status: entryStatus,
    position: z.int().min(1).nullable().describe('1-based rank in the queue while waiting, else null'),
    total: count.describe('Entries in the queue'),
    referralCode: z.string(),
    referralUrl: z.string(),
    referrals: count,
  })
  .meta({ id: 'PublicStatus' });

export const leftSchema = z.object({ entryId: id('ent') }).meta({ id: 'LeaveResult' });

const invitedEntrySchema = z.object({ entryId: id('ent'), email: z.string(), inviteCode: z.string(), expiresAt: iso });
export const inviteResultSchema = z.object({ invited: z.array(invitedEntrySchema) }).meta({ id: 'InviteResult' });
export const invitePreviewSchema = z
  .object({
    invited: z.array(z.object({ entryId: id('ent'), email: z.string(), position: z.int().min(1).nullable() })),
    dryRun: z.literal(true),
  })
  .meta({ id: 'InvitePreview' });

export const redeemResultSchema = z
  .object({
    entryId: id('ent'),
    email: z.string(),
    name: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    status: z.literal('accepted'),
  })
  .meta({ id: 'RedeemResult' });

export const inviteCheckSchema = z
  .object({ entryId: id('ent'), email: z.string(), status: entryStatus, expiresAt: isoOrNull })
  .meta({ id: 'InviteCheck' });

export const publicLeaderSchema = z
  .object({ rank: z.int().min(1), name: z.string().describe('The name, or the email masked'), referrals: count })
  .meta({ id: 'PublicLeader' });

export const leaderboardEntrySchema = entrySchema.extend({ rank: z.int().min(1) }).meta({ id: 'LeaderboardEntry' });

// ---- sign-up surface: challenge, form, import ----

export const challengeSchema = z
  .object({
    algorithm: z.literal('SHA-256'),
    challenge: z.string(),
    maxnumber: z.int().min(1),
    salt: z.string(),
    signature: z.string(),
  })
  .meta({ id: 'Challenge', description: 'An ALTCHA proof-of-work challenge; send the solved payload as the join body’s `altcha`' });

export const fieldDefinitionSchema = z
  .object({
    key: z.string(),
    label: z.string(),
    type: z.enum(FIELD_TYPES),
    required: z.boolean(),
    options: z.array(z.string()).optional().describe('The choices of a `select`'),
  })
  .meta({ id: 'FieldDefinition' });

export const publicFormSchema = z
  .object({
    name: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    fields: z.array(fieldDefinitionSchema),
    captcha: z.enum(['off', 'pow']),
  })
  .meta({ id: 'PublicForm' });

export const importResultSchema = z
  .object({
    imported: count,
    duplicates: count,
    invalid: z
      .array(z.object({ line: z.int().min(1), message: z.string() }))
      .max(100)
      .describe('The first 100 bad rows'),
    invalidCount: count.describe('How many rows were bad in all'),
    dryRun: z.boolean(),
    dateFormat: z.enum(['dmy', 'mdy']).nullable().describe('The order slash dates were read in (null: none, or not settled)'),
  })
  .meta({ id: 'ImportResult' });
/** The result of an import (POST /api/project/:projectId/import): the schema's type, as the client reads it. */
export type ImportResult = z.output<typeof importResultSchema>;

// Every field of the settings shapes is optional in a PUT body; GET answers each one with its value.
type RequiredShape<S extends z.ZodRawShape> = { [K in keyof S]: S[K] extends z.ZodOptional<infer I> ? I : S[K] };
const requiredShape = <S extends z.ZodRawShape>(shape: S) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v instanceof z.ZodOptional ? v.unwrap() : v])) as RequiredShape<S>;
export const projectSettingsSchema = z
  .object({
    ...requiredShape(eventSettingsShape),
    ...requiredShape(lifecycleSettingsShape),
    ...requiredShape(surfaceSettingsShape),
    allowedOrigins: z.array(z.string()).describe('Origins allowed to call the join route from a browser; empty = any'),
    blockDisposableEmails: z.boolean(),
    honeypotField: z.string().nullable().describe('Extra join-body field that only bots fill; null = none'),
  })
  .meta({ id: 'ProjectSettings' });

/** A soft-deleted or revoked resource, as the DELETE routes answer it. */
export const deleted = <T extends z.ZodObject>(schema: T) => schema.extend({ deletedAt: iso });

/** `data` of every list route. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), page: z.int().min(1), limit: z.int().min(1).max(100), total: count, totalPages: count });

/** The success envelope around `data`. */
export const successEnvelope = <T extends z.ZodType>(data: T) =>
  z.object({ status: z.literal('success'), message: z.string(), data, timestamp: z.int().describe('Unix epoch milliseconds') });

export const errorEnvelopeSchema = z
  .object({
    status: z.literal('error'),
    message: z.string(),
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
      issues: z
        .array(z.object({ path: z.string().describe('Dotted field path'), message: z.string() }))
        .optional()
        .describe('Only on validation_failed: one item per offending field'),
    }),
    timestamp: z.int().describe('Unix epoch milliseconds'),
  })
  .meta({ id: 'Error' });

// ---- the schemas above and the types code uses must describe the same JSON ----
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const agree = <T extends true>(): T => true as T;
agree<Same<z.output<typeof userSchema>, User>>();
agree<Same<z.output<typeof authStatusSchema>, AuthStatus>>();
agree<Same<z.output<typeof projectSchema>, Project>>();
agree<Same<z.output<typeof apiKeySchema>, ApiKey>>();
agree<Same<z.output<typeof createdApiKeySchema>, CreatedApiKey>>();
agree<Same<z.output<typeof entrySchema>, Entry>>();
agree<Same<z.output<typeof joinResultSchema>, JoinResult>>();
agree<Same<z.output<typeof statsSchema>, Stats>>();
agree<Same<z.output<typeof projectSettingsSchema>, ProjectSettings>>();
agree<Same<z.output<typeof webhookSchema>, Webhook>>();
agree<Same<z.output<typeof webhookCreatedSchema>, WebhookCreated>>();
agree<Same<z.output<typeof webhookRotatedSchema>, WebhookRotated>>();
agree<Same<z.output<typeof deliverySchema>, Delivery>>();
agree<Same<z.output<typeof emailLogItemSchema>, EmailLogItem>>();
agree<Same<z.output<typeof templatesSchema>, Templates>>();
agree<Same<z.output<typeof renderedEmailSchema>, RenderedEmail>>();
agree<Same<z.output<typeof publicStatusSchema>, PublicEntry>>();
agree<Same<z.output<typeof inviteResultSchema>, InviteResult>>();
agree<Same<z.output<typeof invitePreviewSchema>, InvitePreview>>();
agree<Same<z.output<typeof redeemResultSchema>, RedeemResult>>();
agree<Same<z.output<typeof inviteCheckSchema>, InviteCheck>>();
agree<Same<z.output<typeof publicLeaderSchema>, PublicLeader>>();
agree<Same<z.output<typeof leaderboardEntrySchema>, LeaderboardEntry>>();
agree<Same<z.output<typeof fieldDefinitionSchema>, FieldDefinition>>();
// importResultSchema and challengeSchema describe types of the server's core (the contract may not import
// it): they are checked in src/server/openapi/routes.ts.
