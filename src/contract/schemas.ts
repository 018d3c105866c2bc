// The contract's request and response shapes, shared by the server (validation) and the client (typing).
import { z } from 'zod';
import { KEY_KINDS, sortParam, statusParam } from './lifecycle.js';
import { isValidEmail } from './email.js';
import { type EventSettings, eventSettingsShape } from './settings-events.js';
import { type LifecycleSettings, lifecycleSettingsShape } from './settings-lifecycle.js';
import { type SurfaceSettings, surfaceSettingsShape } from './settings-surface.js';

/** The contract's limits (docs/api.md); one place so server, client and docs agree. */
export const LIMITS = {
  bodyBytes: 16 * 1024,
  metadataBytes: 8 * 1024,
  metadataDepth: 5,
  emailChars: 254,
  entryNameChars: 200,
  sourceChars: 100,
  projectNameChars: 100,
  keyNameChars: 100,
  userNameChars: 200,
  passwordMin: 8,
  passwordMax: 200,
  pageMax: 1_000_000_000,
  pageLimitMax: 100,
  pageLimitDefault: 20,
  searchChars: 200,
} as const;

export { SLUG_RE } from './slug.js';
import { SLUG_RE } from './slug.js';

/**
 * Depth of a JSON value: a scalar is 0, `{}` or `[]` is 1, `{a:{}}` is 2. Past `cap` it stops
 * descending and answers some number above `cap`, so hostile nesting cannot overflow the stack.
 */
export function jsonDepth(value: unknown, cap = Infinity): number {
  if (value === null || typeof value !== 'object') return 0;
  if (cap <= 0) return 1;
  let max = 0;
  for (const child of Object.values(value as Record<string, unknown>)) {
    const d = jsonDepth(child, cap - 1);
    if (d > max) max = d;
    if (max >= cap) break;
  }
  return max + 1;
}

/** The dotted path (under `at`) of the first number in a JSON value that is not finite (`1e400` parses as Infinity), or null. */
function nonFinitePath(value: unknown, at: string): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : at;
  if (value === null || typeof value !== 'object') return null;
  for (const [k, child] of Object.entries(value as Record<string, unknown>)) {
    const p = nonFinitePath(child, `${at}.${k}`);
    if (p) return p;
  }
  return null;
}

const encoder = new TextEncoder();
/** UTF-8 size of a string (works in Node and in the browser bundle, which shares these schemas' types). */
const utf8Bytes = (s: string) => encoder.encode(s).length;

// IDN domains and UTF-8 local parts are accepted (the rule is in ./email.ts); NFC so that one address
// typed two ways is stored one way.
const trimmedEmail = z
  .string()
  .trim()
  .max(LIMITS.emailChars, `Email must be at most ${LIMITS.emailChars} characters`)
  .transform((s) => s.normalize('NFC'))
  .pipe(z.string().refine(isValidEmail, 'Invalid email address'));

// z.custom, not z.record: a record is rebuilt key by key, and a "__proto__" key then silently vanishes.
export const metadataSchema = z
  .custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'Metadata must be a JSON object')
  .superRefine((value, ctx) => {
    if (jsonDepth(value, LIMITS.metadataDepth) > LIMITS.metadataDepth) {
      ctx.addIssue({ code: 'custom', message: `Metadata must nest at most ${LIMITS.metadataDepth} levels` });
      return; // thousands of levels would overflow JSON.stringify below
    }
    if (utf8Bytes(JSON.stringify(value)) > LIMITS.metadataBytes) {
      ctx.addIssue({ code: 'custom', message: `Metadata must be at most ${LIMITS.metadataBytes} bytes serialised` });
    }
    // JSON.stringify would store such a number as null: refuse it instead of changing the value.
    const inf = nonFinitePath(value, 'metadata');
    // The issue's path is the number's own (metadata.a.b), as for an unpaired surrogate.
    if (inf) ctx.addIssue({ code: 'custom', path: inf.split('.').slice(1), message: `${inf} is a number too large to store (like 1e400)` });
  });

const optionalName = (max: number) => z.string().trim().max(max, `Name must be at most ${max} characters`);

// ---- auth ----
export const signupBody = z.strictObject({
  email: trimmedEmail,
  password: z
    .string()
    .min(LIMITS.passwordMin, `Password must be at least ${LIMITS.passwordMin} characters`)
    .max(LIMITS.passwordMax, `Password must be at most ${LIMITS.passwordMax} characters`),
  name: optionalName(LIMITS.userNameChars).optional(),
});
// Any text: an address no account has (a malformed one too) or a password no account can have (longer
// than sign-up allows) is a wrong email or password, the same 401 as any other (CONTRACT.md). The body's
// 16 KiB bounds both.
export const loginBody = z.strictObject({
  email: z.string('Email is required').trim().min(1, 'Email is required'),
  password: z.string('Password is required').min(1, 'Password is required'),
});

// ---- projects ----
/** A required string's type error: "Name is required" when absent, "Name must be a string" when not text. */
const nameType = { error: (i: { input: unknown }) => (i.input === undefined ? 'Name is required' : 'Name must be a string') };
const projectName = z
  .string(nameType)
  .trim()
  .min(1, 'Name is required')
  .max(LIMITS.projectNameChars, `Name must be at most ${LIMITS.projectNameChars} characters`);
export const slugSchema = z
  .string()
  .min(3, 'Slug must be at least 3 characters')
  .max(48, 'Slug must be at most 48 characters')
  .regex(SLUG_RE, 'Slug may contain only a-z, 0-9 and single inner hyphens');
export const createProjectBody = z.strictObject({ name: projectName, slug: slugSchema.optional() });
export const updateProjectBody = z.strictObject({ name: projectName });

// ---- keys ----
const keyName = z
  .string(nameType)
  .trim()
  .min(1, 'Name is required')
  .max(LIMITS.keyNameChars, `Name must be at most ${LIMITS.keyNameChars} characters`);
export const createKeyBody = z.strictObject({
  name: keyName,
  kind: z.enum(KEY_KINDS, `kind must be one of ${KEY_KINDS.join(', ')}`).optional(),
});
export const updateKeyBody = z.strictObject({ name: keyName });

// ---- join and entries ----
export const joinBody = z.strictObject({
  email: trimmedEmail,
  name: optionalName(LIMITS.entryNameChars).optional(),
  source: z
    .string()
    .trim()
    .min(1, 'Source must not be empty')
    .max(LIMITS.sourceChars, `Source must be at most ${LIMITS.sourceChars} characters`)
    .optional(),
  metadata: metadataSchema.optional(),
  // Sign-up surface: answers to the project's custom fields (checked against its `fields` setting by
  // src/core/fields.ts) and a solved proof-of-work challenge (src/core/captcha.ts).
  fields: z
    .custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'fields must be an object of answers')
    .optional(),
  altcha: z.string('altcha must be the solved challenge payload').max(4096, 'altcha is too long').optional(),
  /** A referral code of the same project; an unknown one is ignored. */
  ref: z.string('ref must be a string').trim().max(64, 'ref must be at most 64 characters').optional(),
});
export const updateEntryBody = z
  .strictObject({
    name: optionalName(LIMITS.entryNameChars).nullable().optional(),
    metadata: metadataSchema.optional(),
  })
  .refine((b) => b.name !== undefined || b.metadata !== undefined, {
    message: 'Give name and/or metadata',
    path: ['name'],
    // Not beside another issue: `{"email": …}` is about email, not about a missing name.
    when: (p) => p.issues.length === 0,
  });

const intParam = (name: string, min: number, max: number, fallback: number) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return fallback;
      if (Array.isArray(v) || !/^\d+$/.test(v)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer` });
        return z.NEVER;
      }
      const n = Number(v);
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

const searchParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v, ctx) => {
    if (Array.isArray(v)) {
      ctx.addIssue({ code: 'custom', message: 'search must be given once' });
      return z.NEVER;
    }
    const s = v?.trim();
    if (s && s.length > LIMITS.searchChars) {
      ctx.addIssue({ code: 'custom', message: `search must be at most ${LIMITS.searchChars} characters` });
      return z.NEVER;
    }
    // No stored text holds NUL (refused at write), and neither FTS5 nor PostgreSQL accepts it in a query.
    if (s?.includes('\u0000')) {
      ctx.addIssue({ code: 'custom', message: 'search must not contain NUL characters' });
      return z.NEVER;
    }
    return s ? s : undefined;
  });

export const pageQuery = z.object({
  page: intParam('page', 1, LIMITS.pageMax, 1),
  limit: intParam('limit', 1, LIMITS.pageLimitMax, LIMITS.pageLimitDefault),
});
export const entryListQuery = pageQuery.extend({ search: searchParam, status: statusParam, sort: sortParam });
export const EXPORT_FORMATS = ['json', 'ndjson', 'csv'] as const;
export const exportQuery = z.object({
  format: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return 'json' as const;
      if (typeof v === 'string' && (EXPORT_FORMATS as readonly string[]).includes(v)) {
        return v as (typeof EXPORT_FORMATS)[number];
      }
      ctx.addIssue({ code: 'custom', message: `format must be one of ${EXPORT_FORMATS.join(', ')}` });
      return z.NEVER;
    }),
  search: searchParam,
});

export type SignupBody = z.infer<typeof signupBody>;
export type LoginBody = z.infer<typeof loginBody>;
export type CreateProjectBody = z.infer<typeof createProjectBody>;
export type UpdateProjectBody = z.infer<typeof updateProjectBody>;
export type CreateKeyBody = z.infer<typeof createKeyBody>;
export type UpdateKeyBody = z.infer<typeof updateKeyBody>;
export type JoinBody = z.infer<typeof joinBody>;
export type UpdateEntryBody = z.infer<typeof updateEntryBody>;
export type PageQuery = z.infer<typeof pageQuery>;
export type EntryListQuery = z.infer<typeof entryListQuery>;
/** What a caller sends to a list route (the server parses the strings into PageQuery). */
export type PageParams = {
  page?: number;
  limit?: number;
};
/** What a caller sends to the entry list. */
export type EntryListParams = PageParams & {
  search?: string | undefined;
};
/** What a caller sends to the export. */
export type ExportParams = {
  format: ExportFormat;
  search?: string | undefined;
};
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

// ---- project settings (GET/PUT /api/project/:projectId/settings) ----
export const SETTINGS_LIMITS = { origins: 50, originChars: 200 } as const;
/** Join-body fields a honeypot may not shadow (plus names that are special on JS objects). */
export const RESERVED_HONEYPOT = ['email', 'name', 'source', 'metadata', 'ref', '__proto__', 'constructor', 'prototype'];
/** True for names a honeypot may not take: join fields, and every name an object inherits (valueOf, toString, …). */
export const reservedHoneypot = (v: string) => RESERVED_HONEYPOT.includes(v) || v in Object.prototype;
export const HONEYPOT_RE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

const originSchema = z
  .string()
  .trim()
  .max(SETTINGS_LIMITS.originChars, `An origin must be at most ${SETTINGS_LIMITS.originChars} characters`)
  .transform((v, ctx) => {
    let u: URL | undefined;
    try {
      u = new URL(v);
    } catch {
      /* reported below */
    }
    const bare =
      u && u.pathname === '/' && !u.search && !u.hash && !u.username && !u.password && !/[/?#]./.test(v.replace(/^[a-z]+:\/\//i, ''));
    if (!u || !bare || (u.protocol !== 'https:' && u.protocol !== 'http:')) {
      ctx.addIssue({ code: 'custom', message: 'An origin is a scheme, host and optional port, like https://example.com (no path)' });
      return z.NEVER;
    }
    return u.origin;
  });

export const projectSettingsBody = z.strictObject({
  ...eventSettingsShape,
  ...lifecycleSettingsShape,
  ...surfaceSettingsShape,
  allowedOrigins: z
    .array(originSchema, 'allowedOrigins must be an array of origins')
    .max(SETTINGS_LIMITS.origins, `At most ${SETTINGS_LIMITS.origins} origins`)
    .transform((list) => [...new Set(list)])
    .optional(),
  blockDisposableEmails: z.boolean('blockDisposableEmails must be true or false').optional(),
  honeypotField: z
    .string()
    .trim()
    .transform((v, ctx) => {
      if (v === '') return null;
      if (!HONEYPOT_RE.test(v) || reservedHoneypot(v)) {
        ctx.addIssue({
          code: 'custom',
          message:
            'honeypotField must be 1-64 letters, digits, "_" or "-", start with a letter, and not be a join field or a built-in object property (valueOf, toString, …)',
        });
        return z.NEVER;
      }
      return v;
    })
    .nullable()
    .optional(),
});

/** GET/PUT /api/project/:projectId/settings `data`: the join settings below plus each feature's own. */
export interface ProjectSettings extends EventSettings, LifecycleSettings, SurfaceSettings {
  /** Origins allowed to call the join route from a browser; empty = any origin. */
  allowedOrigins: string[];
  blockDisposableEmails: boolean;
  /** Extra join-body field that only bots fill; null = no honeypot. */
  honeypotField: string | null;
}
export type ProjectSettingsBody = z.infer<typeof projectSettingsBody>;
