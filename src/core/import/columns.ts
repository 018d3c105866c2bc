// Which column of an imported file means what. Names are compared lower-cased with spaces, `_` and `-`
// removed, so `First Name`, `first_name` and `firstName` are one name. Columns this server exports
// import as they were; hosted tools' usual names map as below; every other non-empty column is kept in
// the entry's `metadata` under its own title.
import type { FieldDefinition } from '../../contract/settings-surface.js';

export type Target =
  | {
      kind:
        | 'email'
        | 'name'
        | 'first'
        | 'last'
        | 'source'
        | 'metadata'
        | 'fields'
        | 'createdAt'
        | 'status'
        | 'ip'
        | 'country'
        | 'userAgent'
        | 'removed'
        | 'ignore';
    }
  | { kind: 'field'; key: string }
  | { kind: 'extra'; name: string };

export const norm = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');

const NAMES: Record<string, Target['kind']> = {};
const add = (kind: Target['kind'], ...names: string[]) => {
  for (const n of names) NAMES[norm(n)] = kind;
};
add('email', 'email', 'e-mail', 'email address', 'e-mail address', 'mail', 'emailaddress', 'subscriber email');
add('name', 'name', 'full name', 'fullname', 'display name');
add('first', 'first name', 'firstname', 'first', 'given name');
add('last', 'last name', 'lastname', 'last', 'surname', 'family name');
add('source', 'source', 'utm source', 'utm_source', 'signup source', 'referrer source');
add('metadata', 'metadata');
add('fields', 'fields');
add(
  'createdAt',
  'createdAt',
  'created_at',
  'created',
  'signed up',
  'signed up at',
  'signup date',
  'signed_up_at',
  'joined',
  'joined at',
  'date joined',
  'subscribed at',
  'timestamp',
  'date',
);
add('status', 'status');
add('ip', 'ip', 'ip address');
add('country', 'country');
add('userAgent', 'userAgent', 'user agent');
add('removed', 'removed_date', 'removed at', 'deleted at', 'deletedAt', 'unsubscribed at');
// Our own export's bookkeeping: new ids and times are given on import.
add('ignore', 'entryId', 'updatedAt');
/**
 * In a file of this server's export (it has an `entryId` column), what the queue computed: an imported
 * row gets a new referral code and times, and its place and referral count come from the queue it joins
 * (an old server's entry ids mean nothing here), so these are not kept, not even in metadata. In other
 * files (a hosted tool's "Position", say) such columns are kept in metadata like any other.
 */
const OWN_EXPORT_QUEUE = new Set(
  ['position', 'referrals', 'referralCode', 'referredBy', 'confirmedAt', 'invitedAt', 'acceptedAt'].map(norm),
);

/** The target of each column of a header row. */
export function mapHeader(header: readonly string[], defs: readonly FieldDefinition[]): Target[] {
  const byKey = new Map(defs.map((d) => [d.key.toLowerCase(), d.key]));
  const byLabel = new Map(defs.map((d) => [norm(d.label), d.key]));
  const taken = new Set<string>();
  const ownExport = header.some((h) => norm(h) === norm('entryId'));
  return header.map((raw) => {
    const h = raw.trim();
    if (ownExport && OWN_EXPORT_QUEUE.has(norm(h))) return { kind: 'ignore' };
    if (/^fields\./i.test(h)) {
      const key = byKey.get(h.slice(7).toLowerCase());
      return key ? { kind: 'field', key } : { kind: 'extra', name: h };
    }
    const kind = NAMES[norm(h)];
    // A column whose title is a custom field's label or key answers that field.
    const fieldKey = byLabel.get(norm(h)) ?? byKey.get(h.toLowerCase());
    if (fieldKey && kind === undefined) return { kind: 'field', key: fieldKey };
    if (kind === undefined || h === '') return h === '' ? { kind: 'ignore' } : { kind: 'extra', name: h };
    if (kind !== 'ignore' && taken.has(kind)) return { kind: 'extra', name: h }; // a second "date": keep, do not overwrite
    taken.add(kind);
    return { kind } as Target;
  });
}
