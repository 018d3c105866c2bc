// Fan-out: what each committed event turns into, decided by the dispatcher after the commit (never on
// the join path): one delivery per enabled webhook subscribed to the event type, and the sign-up notices
// of the project's `notify` setting (one email per sign-up, or one hourly digest row per recipient).
import type { EventRow, FanOutPlan, NewDelivery, WebhookRow } from '../db/outbox.js';
import type { ProjectRow } from '../db/store.js';
import { encodeTime } from 'ulidx';
import { sha256 } from './crypto.js';
import { outboxId } from './outbox.js';
import { featureSettings } from './settings.js';

const HOUR_MS = 3_600_000;

interface EntryData {
  email?: string;
  name?: string | null;
  status?: string;
}

/** Whether the event is a sign-up that counts for notices (a confirmed or non-pending new entry). */
function isSignup(e: EventRow, data: EntryData): boolean {
  // No email: the entry left before its event was fanned out (erasure keeps only its id): no notice.
  if (!data.email) return false;
  return (e.type === 'entry.created' && data.status !== 'pending') || e.type === 'entry.confirmed';
}

/** Most distinct `events` lists kept parsed; past it the cache starts over. */
const EVENT_LISTS_KEPT = 1000;

/** The fan-out plan; `withEmail` is false when the server has no SMTP (then no email is created). */
export function fanOutPlan(withEmail: boolean): FanOutPlan {
  // A webhook's `events` column (a JSON array) parsed once per distinct text, not once per event and
  // webhook: the text is the key, so a webhook whose list changes is read afresh.
  const eventLists = new Map<string, Set<string>>();
  const subscribed = (h: WebhookRow, type: string) => {
    let types = eventLists.get(h.events);
    if (!types) {
      if (eventLists.size >= EVENT_LISTS_KEPT) eventLists.clear();
      types = new Set(JSON.parse(h.events) as string[]);
      eventLists.set(h.events, types);
    }
    return types.has(type);
  };
  return (e: EventRow, hooks: WebhookRow[], project: ProjectRow | undefined): NewDelivery[] => {
    const out: NewDelivery[] = [];
    const base = { projectId: e.projectId, createdAt: e.createdAt, nextAttemptAt: e.createdAt };
    for (const h of hooks) {
      if (!subscribed(h, e.type)) continue;
      out.push({
        ...base,
        id: outboxId('dlv'),
        kind: 'webhook',
        webhookId: h.id,
        eventId: e.id,
        type: e.type,
        recipient: null,
        data: null,
      });
    }
    if (!withEmail || !project || project.deletedAt !== null) return out;
    const settings = featureSettings(project);
    if (settings.notify === 'off' || !settings.notifyEmails.length) return out;
    const data = ((JSON.parse(e.payload) as { data?: EntryData }).data ?? {}) as EntryData;
    if (!isSignup(e, data)) return out;
    for (const to of settings.notifyEmails) {
      if (settings.notify === 'each') {
        out.push({
          ...base,
          id: outboxId('eml'),
          kind: 'email',
          webhookId: null,
          eventId: null,
          type: 'notice',
          recipient: to,
          data: JSON.stringify({ email: data.email ?? '', name: data.name ?? null }),
        });
      } else {
        // One digest per recipient per hour: a fixed id, so the hour's other sign-ups add nothing (insert ignores it);
        // the digest counts the hour's sign-ups when it is sent, at the end of the hour (and only if the
        // address is still a recipient then: src/core/dispatcher.ts).
        const from = Math.floor(e.createdAt / HOUR_MS) * HOUR_MS;
        out.push({
          projectId: e.projectId,
          createdAt: e.createdAt,
          nextAttemptAt: from + HOUR_MS,
          id: digestId(e.projectId, from, to),
          kind: 'email',
          webhookId: null,
          eventId: null,
          type: 'digest',
          recipient: to,
          data: JSON.stringify({ from, to: from + HOUR_MS }),
        });
      }
    }
    return out;
  };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The id of the digest of `to` for the hour starting at `hourStart`: an `eml_` id whose time part is the
 * hour's start (so the email log, newest first by id, lists it among the emails of its hour) and whose
 * rest is a hash of the project, the hour and the address. Keyed by the address, not its place in
 * `notifyEmails`: an address added during the hour gets its own digest from the next sign-up on.
 */
export function digestId(projectId: string, hourStart: number, to: string): string {
  const h = Buffer.from(sha256(`${projectId}|${hourStart}|${to.trim().toLowerCase()}`), 'hex');
  let rest = '';
  for (let i = 0; i < 16; i++) rest += CROCKFORD[h[i]! & 31];
  return `eml_${encodeTime(hourStart, 10)}${rest}`;
}
