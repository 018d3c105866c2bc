// Project settings owned by the events layer (webhooks and email: welcome email, sign-up notices).
// Each field of the shape is optional (PUT changes only the fields given); the defaults are what GET shows
// for a project that never set them. Stored in the project's `settings` JSON column.
import { z } from 'zod';

export const NOTIFY_MODES = ['each', 'hourly', 'off'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

export const eventSettingsShape = {
  welcomeEmail: z.boolean('welcomeEmail must be true or false').optional(),
  notifyEmails: z
    .array(z.email('notifyEmails must hold email addresses').max(254), 'notifyEmails must be an array of email addresses')
    .max(20, 'At most 20 notifyEmails')
    .transform((list) => [...new Set(list.map((e) => e.trim()))])
    .optional(),
  notify: z.enum(NOTIFY_MODES, 'notify must be "each", "hourly" or "off"').optional(),
} satisfies z.ZodRawShape;

export interface EventSettings {
  /** Send a welcome email to each new subscriber (needs SMTP). */
  welcomeEmail: boolean;
  /** Addresses that receive sign-up notices. */
  notifyEmails: string[];
  /** Sign-up notices: one email per sign-up, an hourly digest, or none. */
  notify: NotifyMode;
}
export const eventSettingsDefaults: EventSettings = { welcomeEmail: false, notifyEmails: [], notify: 'off' };
