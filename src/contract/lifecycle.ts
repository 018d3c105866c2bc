// Request and response shapes of the lifecycle routes (LIFECYCLE.md): tokens, invites, leaderboard.
import { z } from 'zod';
import type { Entry } from './types.js';

export const ENTRY_STATUSES = ['pending', 'waiting', 'invited', 'accepted'] as const;
export type EntryStatusName = (typeof ENTRY_STATUSES)[number];
export const KEY_KINDS = ['publishable', 'secret'] as const;
export const MAX_INVITE_BATCH = 10_000;

const token = (field: string) => z.string(`${field} is required`).trim().min(1, `${field} is required`).max(200, `${field} is too long`);

/** POST /v1/waitlist/:slug/confirm and /leave. */
export const tokenBody = z.strictObject({ token: token('token') });
/** POST /v1/waitlist/:slug/invites/redeem. */
export const redeemBody = z.strictObject({ code: token('code') });

/** POST /api/project/:projectId/invites: `{count}` or `{entryIds}` (and `dryRun`). */
export const inviteBody = z
  .strictObject({
    count: z
      .number('count must be an integer')
      .int('count must be an integer')
      .min(1, `count must be between 1 and ${MAX_INVITE_BATCH}`)
      .max(MAX_INVITE_BATCH, `count must be between 1 and ${MAX_INVITE_BATCH}`)
      .optional(),
    entryIds: z
      .array(z.string().min(1).max(100), 'entryIds must be an array of entry ids')
      .min(1, 'entryIds must not be empty')
      .max(MAX_INVITE_BATCH, `At most ${MAX_INVITE_BATCH} entryIds`)
      .optional(),
    dryRun: z.boolean('dryRun must be true or false').optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.count === undefined) === (b.entryIds === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['count'], message: 'Give either count or entryIds' });
    }
  });
export type InviteBody = z.infer<typeof inviteBody>;

/** The `status` and `sort` query parameters of the entry list. */
export const statusParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return undefined;
    if (typeof v !== 'string' || !(ENTRY_STATUSES as readonly string[]).includes(v)) {
      ctx.addIssue({ code: 'custom', message: `status must be one of ${ENTRY_STATUSES.join(', ')}` });
      return z.NEVER;
    }
    return v as EntryStatusName;
  });
export const sortParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return 'newest' as const;
    if (v !== 'newest' && v !== 'position') {
      ctx.addIssue({ code: 'custom', message: 'sort must be newest or position' });
      return z.NEVER;
    }
    return v;
  });

/** The subscriber's own view (status route, confirm). */
export interface PublicEntry {
  email: string;
  name: string | null;
  status: EntryStatusName;
  position: number | null;
  total: number;
  referralCode: string;
  referralUrl: string;
  referrals: number;
}

export interface InvitedEntry {
  entryId: string;
  email: string;
  inviteCode: string;
  expiresAt: string;
}
export interface InviteResult {
  invited: InvitedEntry[];
}
/** A dry run lists who would be invited, without codes. */
export interface InvitePreview {
  invited: { entryId: string; email: string; position: number | null }[];
  dryRun: true;
}

export interface RedeemResult {
  entryId: string;
  email: string;
  name: string | null;
  metadata: Record<string, unknown>;
  status: 'accepted';
}
export interface InviteCheck {
  entryId: string;
  email: string;
  status: EntryStatusName;
  expiresAt: string | null;
}

export interface PublicLeader {
  rank: number;
  name: string;
  referrals: number;
}
export type LeaderboardEntry = Entry & { rank: number };
