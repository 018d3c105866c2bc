// Building outbox rows (no SQL here): events with their payload, and queued emails. How another layer
// writes them inside its own transaction is explained at the top of src/db/outbox.ts.
import { monotonicFactory } from 'ulidx';
import type { OutboxEmail, OutboxEvent } from '../db/outbox.js';
import { positionAtInsert, type EntryRow, type ProjectRow } from '../db/store.js';
import { pooledPrng } from './crypto.js';
import { AppError } from './errors.js';
import { entryJson } from './serialize.js';
import { featureSettings } from './settings.js';

const ulid = monotonicFactory(pooledPrng);

import { EMAIL_TEMPLATES, EVENT_TYPES, type EmailTemplateName, type EventType } from '../contract/events.js';

export { EMAIL_TEMPLATES, EVENT_TYPES, type EventType };
/** Email templates every project has (with defaults, src/core/templates.ts). */
export type EmailTemplate = EmailTemplateName;

/** Outbox ids: `evt_` (the webhook-id receivers dedupe on), `wh_`, `dlv_` (webhook attempt), `eml_`. */
export const outboxId = (prefix: 'evt' | 'wh' | 'dlv' | 'eml') => `${prefix}_${ulid()}`;

const newDeliveryId = () => outboxId('dlv');

/** An event row: payload `{type, timestamp, projectId, data}` serialised once (the signed body). */
export function newEvent(type: EventType | 'ping', projectId: string, data: unknown, now = Date.now()): OutboxEvent {
  return { id: outboxId('evt'), projectId, type, payload: payloadOf(type, projectId, data, now), createdAt: now };
}

/** An event's `data` already serialised (e.g. entryJson): spliced into the payload as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** JSON.stringify({ type, timestamp, projectId, data }), with `data` given as JsonText spliced in. */
const payloadOf = (type: string, projectId: string, data: unknown, now: number) =>
  data instanceof JsonText
    ? `{"type":${JSON.stringify(type)},"timestamp":"${new Date(now).toISOString()}","projectId":${JSON.stringify(projectId)},"data":${data.text}}`
    : JSON.stringify({ type, timestamp: new Date(now).toISOString(), projectId, data });

/**
 * An entry event's `data`: the entry as the management API shows it at the change, its position
 * included (the store gives it for a join or a confirmation, `positionAtInsert`; null unless
 * waiting), written straight from the row (entryJson, the same bytes as JSON.stringify(toEntry(row,
 * position))) and only when called.
 */
export const entryData = (row: EntryRow) => () => new JsonText(entryJson(row, positionAtInsert.get(row)));

/**
 * An event of an entry change that only webhooks read: written only when an enabled webhook of the
 * project subscribes to its type at the change's commit (docs/events.md). `data` is called, and the
 * payload built, only when the event is written. `feedsNotices`: the change may also become a
 * sign-up notice (the project's `notify` setting), so the event is always written.
 */
export function entryEvent(type: EventType, projectId: string, data: () => unknown, now = Date.now(), feedsNotices = false): OutboxEvent {
  if (feedsNotices) return newEvent(type, projectId, data(), now);
  let payload: string | undefined;
  return {
    id: outboxId('evt'),
    projectId,
    type,
    get payload() {
      payload ??= payloadOf(type, projectId, data(), now);
      return payload;
    },
    createdAt: now,
    ifSubscribed: true,
    deliveryId: newDeliveryId,
  };
}

/** Whether the project's sign-ups become notices (notify each / digest, to at least one address). */
export function sendsNotices(project: ProjectRow | undefined): boolean {
  if (!project) return true; // unknown settings: keep the event, the fan-out decides
  const s = featureSettings(project);
  return s.notify !== 'off' && s.notifyEmails.length > 0;
}

/** Template variables an email may use; links are absolute (built on the server's public URL). */
export type EmailVars = Record<string, string | number | null | undefined>;

/** A queued email. `vars.leaveUrl`, when given, also becomes the List-Unsubscribe header. */
export function newEmail(projectId: string, template: EmailTemplate, recipient: string, vars: EmailVars, now = Date.now()): OutboxEmail {
  return { id: outboxId('eml'), projectId, template, recipient, data: JSON.stringify(vars), createdAt: now };
}

/** 409 smtp_not_configured when a settings change needs email and the server has no SMTP. */
export function checkEmailSettings(body: { welcomeEmail?: boolean; notify?: string }, hasSmtp: boolean): void {
  if (hasSmtp) return;
  const needs = body.welcomeEmail === true ? 'welcomeEmail' : body.notify && body.notify !== 'off' ? 'notify' : null;
  if (needs) {
    throw new AppError('smtp_not_configured', `${needs} needs email, and this server has no SMTP (start it with --smtp-url)`);
  }
}
