// Invites (LIFECYCLE.md "Invites: letting people in"): a batch is one transaction; each invited
// entry gets a single-use code (256 bits, only its SHA-256 stored) valid for inviteTtlDays.
import type { InviteBody, InviteCheck, InvitePreview, InviteResult, RedeemResult } from '../contract/lifecycle.js';
import type { EntryRow, ProjectRow, Store } from '../db/store.js';
import { AppError, notFound } from './errors.js';
import { emailLinks, newSecret, secretHash } from './lifecycle.js';
import { entryData, entryEvent, newEmail } from './outbox.js';
import { featureSettings } from './settings.js';

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** A time for people to read in an email: "11 December 2026, 14:28 UTC". */
export function readableUtc(ms: number): string {
  const d = new Date(ms);
  const hm = `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${hm} UTC`;
}

/** Invites the next `count` waiting entries (queue order) or the given ones; a dry run only lists them. */
export async function inviteEntries(
  store: Store,
  project: ProjectRow,
  body: InviteBody,
  mail?: { smtp: boolean; base: string },
): Promise<InviteResult | InvitePreview> {
  const sel = body.entryIds ? { entryIds: body.entryIds } : { count: body.count! };
  const now = Date.now();
  const expiresAt = now + featureSettings(project).inviteTtlDays * DAY_MS;
  const codes = new Map<string, string>();
  const hashOf = (entryId: string) => {
    const code = newSecret();
    codes.set(entryId, code);
    return secretHash(code);
  };
  // entry.invited events (and invite emails, with SMTP) are written in the batch's transaction.
  const template = featureSettings(project).inviteUrl;
  const links = mail?.smtp ? await emailLinks(store, project, mail.base) : null;
  const outbox = (rows: EntryRow[]) => ({
    events: rows.map((e) => entryEvent('entry.invited', project.id, entryData(e), now)),
    emails: links
      ? rows.map((e) => {
          const code = codes.get(e.id)!;
          return newEmail(
            project.id,
            'invite',
            e.email,
            {
              email: e.email,
              name: e.name,
              inviteCode: code,
              inviteUrl: template ? template.replaceAll('{code}', encodeURIComponent(code)) : null,
              expiresAt: iso(expiresAt),
              expiresOn: readableUtc(expiresAt),
              ...links(e),
            },
            now,
          );
        })
      : [],
  });
  const r = await store.lifecycle.invite(project.id, {
    sel,
    codeHash: hashOf,
    now,
    expiresAt,
    dryRun: body.dryRun === true,
    outbox,
  });
  if (r.missing.length) {
    throw new AppError('not_found', `Entry not found: ${r.missing.slice(0, 10).join(', ')}`);
  }
  if (r.notEligible.length) {
    throw new AppError(
      'validation_failed',
      'Validation failed',
      r.notEligible.slice(0, 100).map((id) => ({
        path: `entryIds.${body.entryIds!.indexOf(id)}`,
        message: `Entry ${id} is neither waiting nor invited (only those can be invited)`,
      })),
    );
  }
  if (body.dryRun) {
    const pos = await store.lifecycle.positions(project.id, r.rows);
    return { invited: r.rows.map((e) => ({ entryId: e.id, email: e.email, position: pos.get(e.id) ?? null })), dryRun: true };
  }
  return {
    invited: r.rows.map((e) => ({ entryId: e.id, email: e.email, inviteCode: codes.get(e.id)!, expiresAt: iso(expiresAt) })),
  };
}

const unknownInvite = () => notFound('Invite');

/** Redeems a code once: the entry becomes accepted. 409 invite_used / invite_expired; unknown → 404. */
export async function redeemInvite(store: Store, project: ProjectRow, code: string): Promise<RedeemResult> {
  const now = Date.now();
  // entry.accepted is written in the redeem's transaction.
  const r = await store.lifecycle.redeem(project.id, secretHash(code), now, (e) => ({
    events: [entryEvent('entry.accepted', project.id, entryData(e), now)],
  }));
  if (r.result === 'unknown') throw unknownInvite();
  if (r.result === 'used') throw new AppError('invite_used', 'This invite code was already used');
  if (r.result === 'expired') throw new AppError('invite_expired', 'This invite code has expired');
  const e = r.row;
  return { entryId: e.id, email: e.email, name: e.name, metadata: JSON.parse(e.metadata) as Record<string, unknown>, status: 'accepted' };
}

/** Checks a code without redeeming it: the same errors as redeem. */
export async function checkInvite(store: Store, project: ProjectRow, code: string): Promise<InviteCheck> {
  if (code.length > 200) throw unknownInvite();
  const e = await store.lifecycle.entryByInviteCode(project.id, secretHash(code));
  if (!e || (e.status !== 'invited' && e.status !== 'accepted')) throw unknownInvite();
  if (e.status === 'accepted') throw new AppError('invite_used', 'This invite code was already used');
  if (e.inviteExpiresAt !== null && e.inviteExpiresAt <= Date.now()) throw new AppError('invite_expired', 'This invite code has expired');
  return { entryId: e.id, email: e.email, status: e.status, expiresAt: e.inviteExpiresAt === null ? null : iso(e.inviteExpiresAt) };
}
