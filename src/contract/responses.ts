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

/** GET /api/auth/status `data`. */
export const authStatusSchema = z
  .object({
    signupOpen: z.boolean().describe('Whether POST /api/auth/signup would accept a new account now'),
    hasUsers: z.boolean(),
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

const entryStatus = z.enum(['pending', 'waiting', 'invited', 'accepted']);

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
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree = <T extends true>(): T => true as T;
agree<Same<z.output<typeof userSchema>, User>>();
agree<Same<z.output<typeof authStatusSchema>, AuthStatus>>();
agree<Same<z.output<typeof projectSchema>, Project>>();
agree<Same<z.output<typeof apiKeySchema>, ApiKey>>();
agree<Same<z.output<typeof createdApiKeySchema>, CreatedApiKey>>();
agree<Same<z.output<typeof entrySchema>, Entry>>();
agree<Same<z.output<typeof joinResultSchema>, JoinResult>>();
agree<Same<z.output<typeof statsSchema>, Stats>>();
agree<Same<z.output<typeof projectSettingsSchema>, ProjectSettings>>();
