// Project settings owned by the lifecycle (double opt-in, referrals, leaderboard, invites).
// Each field of the shape is optional (PUT changes only the fields given); the defaults are what GET shows
// for a project that never set them. Stored in the project's `settings` JSON column.
import { z } from 'zod';

/** A link template: an absolute http(s) URL containing `{code}`, or null for the default. */
const template = (field: string) =>
  z
    .string(`${field} must be a URL template`)
    .trim()
    .max(500, `${field} must be at most 500 characters`)
    .refine((v) => {
      if (!v.includes('{code}')) return false;
      try {
        const u = new URL(v.replaceAll('{code}', 'x'));
        return u.protocol === 'https:' || u.protocol === 'http:';
      } catch {
        return false;
      }
    }, `${field} must be an http(s) URL containing {code}, like https://example.com/?ref={code}`)
    .nullable()
    .optional();

const intIn = (field: string, min: number, max: number) =>
  z
    .number(`${field} must be an integer`)
    .int(`${field} must be an integer`)
    .min(min, `${field} must be between ${min} and ${max}`)
    .max(max, `${field} must be between ${min} and ${max}`)
    .optional();

export const lifecycleSettingsShape = {
  doubleOptIn: z.boolean('doubleOptIn must be true or false').optional(),
  referralBoost: intIn('referralBoost', 0, 1000),
  referralUrl: template('referralUrl'),
  publicLeaderboard: z.boolean('publicLeaderboard must be true or false').optional(),
  inviteTtlDays: intIn('inviteTtlDays', 1, 365),
  inviteUrl: template('inviteUrl'),
  pendingPurgeDays: intIn('pendingPurgeDays', 1, 365),
} satisfies z.ZodRawShape;

export interface LifecycleSettings {
  /** New entries start `pending` until the emailed link is confirmed (needs SMTP). */
  doubleOptIn: boolean;
  /** Places each counted referral moves the referrer up (0 = plain first-come order). */
  referralBoost: number;
  /** Template of the referral link (`{code}` is replaced); null = the hosted page `/w/:slug?ref={code}`. */
  referralUrl: string | null;
  /** Whether GET /v1/waitlist/:slug/leaderboard answers (else 404). */
  publicLeaderboard: boolean;
  /** Days an invite code stays valid. */
  inviteTtlDays: number;
  /** Template of the link in invite emails (`{code}` is replaced); null = no link, the code only. */
  inviteUrl: string | null;
  /** Pending (unconfirmed) entries older than this many days are erased. */
  pendingPurgeDays: number;
}
export const lifecycleSettingsDefaults: LifecycleSettings = {
  doubleOptIn: false,
  referralBoost: 0,
  referralUrl: null,
  publicLeaderboard: false,
  inviteTtlDays: 14,
  inviteUrl: null,
  pendingPurgeDays: 7,
};
