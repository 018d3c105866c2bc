// Request schemas and response shapes of the events layer: webhooks, their delivery log, the email log
// and email templates (LIFECYCLE.md "Events, webhooks and email"). Used by the server and the client.
import { z } from 'zod';

export const EVENT_TYPES = ['entry.created', 'entry.confirmed', 'entry.invited', 'entry.accepted', 'entry.deleted'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const EMAIL_TEMPLATES = ['confirmation', 'welcome', 'invite', 'notice', 'digest'] as const;
export type EmailTemplateName = (typeof EMAIL_TEMPLATES)[number];
export const WEBHOOK_LIMITS = { urlChars: 2000, perProject: 20, subjectChars: 300, bodyChars: 50_000 } as const;

const url = z
  .string('url must be a string')
  .trim()
  .min(1, 'url is required')
  .max(WEBHOOK_LIMITS.urlChars, `url must be at most ${WEBHOOK_LIMITS.urlChars} characters`);
const events = z
  .array(z.enum(EVENT_TYPES, `events must be among ${EVENT_TYPES.join(', ')}`), 'events must be an array of event types')
  .min(1, 'events must name at least one event type')
  .transform((l) => [...new Set(l)]);

export const createWebhookBody = z.strictObject({ url, events: events.optional() });
/** At least one field: checked in core (a refine here would also fire next to an unknown-field issue). */
export const updateWebhookBody = z.strictObject({
  url: url.optional(),
  events: events.optional(),
  enabled: z.boolean('enabled must be true or false').optional(),
});
/** The longest a rotated-out secret keeps signing: 7 days (default 1 day). */
export const KEEP_PREVIOUS_MAX_SEC = 604_800;
export const KEEP_PREVIOUS_DEFAULT_SEC = 86_400;
export const rotateWebhookSecretBody = z.strictObject({
  keepPreviousFor: z
    .int('keepPreviousFor must be a whole number of seconds')
    .min(0, 'keepPreviousFor must be at least 0')
    .max(KEEP_PREVIOUS_MAX_SEC, `keepPreviousFor must be at most ${KEEP_PREVIOUS_MAX_SEC} (7 days)`)
    .optional(),
});
export type CreateWebhookBody = z.infer<typeof createWebhookBody>;
export type UpdateWebhookBody = z.infer<typeof updateWebhookBody>;

const part = (name: string, max: number) =>
  z.string(`${name} must be a string`).max(max, `${name} must be at most ${max} characters`).nullable().optional();
const templateBody = z
  .strictObject({
    subject: part('subject', WEBHOOK_LIMITS.subjectChars),
    text: part('text', WEBHOOK_LIMITS.bodyChars),
    html: part('html', WEBHOOK_LIMITS.bodyChars),
  })
  .nullable()
  .optional();
/** PUT /templates: per template, the parts to change; a part set to null (or a template set to null) returns to the default. */
export const putTemplatesBody = z.strictObject(
  Object.fromEntries(EMAIL_TEMPLATES.map((n) => [n, templateBody])) as Record<EmailTemplateName, typeof templateBody>,
);
export type PutTemplatesBody = z.infer<typeof putTemplatesBody>;
export const previewTemplateBody = z.strictObject({
  template: z.enum(EMAIL_TEMPLATES, `template must be one of ${EMAIL_TEMPLATES.join(', ')}`),
  subject: part('subject', WEBHOOK_LIMITS.subjectChars),
  text: part('text', WEBHOOK_LIMITS.bodyChars),
  html: part('html', WEBHOOK_LIMITS.bodyChars),
});
export type PreviewTemplateBody = z.infer<typeof previewTemplateBody>;

export interface Webhook {
  webhookId: string;
  url: string;
  events: EventType[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}
/** The create response: the only time `secret` is shown. */
export interface WebhookCreated extends Webhook {
  secret: string;
}
/** A rotation's answer: the new secret (shown once) and until when the replaced one still signs. */
export interface WebhookRotated extends WebhookCreated {
  previousSecretExpiresAt: string | null;
}
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
/** Where a send stands (a webhook delivery or an email: the same outbox row): its attempts and the next one. */
export interface Attempts {
  status: DeliveryStatus;
  attempts: number;
  /** HTTP status (or SMTP code) of the last attempt. */
  lastStatusCode: number | null;
  lastError: string | null;
  /** When the next retry is due; null once delivered or given up. */
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}
export interface Delivery extends Attempts {
  deliveryId: string;
  eventId: string;
  type: string;
}
export interface EmailLogItem extends Attempts {
  emailId: string;
  template: string;
  to: string;
}
export interface TemplateView {
  subject: string;
  text: string;
  html: string;
  /** true when the project changed any part of it. */
  custom: boolean;
}
export type Templates = Record<EmailTemplateName, TemplateView>;
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}
