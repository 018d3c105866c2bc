// Building outbox rows (no SQL here): events with their payload, and queued emails. How another layer
// writes them inside its own transaction is explained at the top of src/db/outbox.ts.
import { monotonicFactory } from 'ulidx';
import type { OutboxEmail, OutboxEvent } from '../db/outbox.js';

const ulid = monotonicFactory();

/** The event types of the contract, plus `ping` (webhook test). */
export const EVENT_TYPES = ['entry.created', 'entry.confirmed', 'entry.invited', 'entry.accepted', 'entry.deleted'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Email templates every project has (with defaults, src/core/templates.ts). */
export const EMAIL_TEMPLATES = ['confirmation', 'welcome', 'invite', 'notice', 'digest'] as const;
export type EmailTemplate = (typeof EMAIL_TEMPLATES)[number];

/** Outbox ids: `evt_` (the webhook-id receivers dedupe on), `wh_`, `dlv_` (webhook attempt), `eml_`. */
export const outboxId = (prefix: 'evt' | 'wh' | 'dlv' | 'eml') => `${prefix}_${ulid()}`;

/** An event row: payload `{type, timestamp, projectId, data}` serialised once (the signed body). */
export function newEvent(type: EventType | 'ping', projectId: string, data: unknown, now = Date.now()): OutboxEvent {
  const id = outboxId('evt');
  const payload = JSON.stringify({ type, timestamp: new Date(now).toISOString(), projectId, data });
  return { id, projectId, type, payload, createdAt: now };
}

/** Template variables an email may use; links are absolute (built on the server's public URL). */
export type EmailVars = Record<string, string | number | null | undefined>;

/** A queued email. `vars.leaveUrl`, when given, also becomes the List-Unsubscribe header. */
export function newEmail(projectId: string, template: EmailTemplate, recipient: string, vars: EmailVars, now = Date.now()): OutboxEmail {
  return { id: outboxId('eml'), projectId, template, recipient, data: JSON.stringify(vars), createdAt: now };
}
