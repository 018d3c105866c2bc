// `waitlist entry invite`: the next N waiting entries (queue order) or the given ids, in one batch.
import type { InvitedEntry, InvitePreview, InviteResult } from '../../contract/lifecycle.js';
import { inviteBody } from '../../contract/lifecycle.js';
import { output, sessionClient, validate, type JsonOpt } from '../context.js';
import { CliError, EXIT } from '../main.js';
import { shortTime, type Column } from '../output.js';

interface InviteOpts extends JsonOpt {
  project: string;
  next?: number;
  dryRun?: boolean;
}

const invitedColumns: Column<InvitedEntry>[] = [
  { header: 'ENTRY ID', value: (e) => e.entryId },
  { header: 'EMAIL', value: (e) => e.email },
  { header: 'INVITE CODE', value: (e) => e.inviteCode },
  { header: 'EXPIRES', value: (e) => e.expiresAt, pretty: (e) => shortTime(e.expiresAt) },
];
const previewColumns: Column<InvitePreview['invited'][number]>[] = [
  { header: 'POSITION', value: (e) => (e.position === null ? null : String(e.position)) },
  { header: 'ENTRY ID', value: (e) => e.entryId },
  { header: 'EMAIL', value: (e) => e.email },
];

export async function inviteEntries(entryIds: string[], opts: InviteOpts) {
  if ((opts.next === undefined) === (entryIds.length === 0)) {
    throw new CliError('give either --next N or entry ids', EXIT.usage);
  }
  const body = validate(
    inviteBody,
    { ...(opts.next !== undefined ? { count: opts.next } : { entryIds }), ...(opts.dryRun ? { dryRun: true } : {}) },
    { count: '--next', entryIds: '<entryIds…>' },
  );
  const client = await sessionClient();
  const result = await client.inviteEntries(opts.project, body as Parameters<typeof client.inviteEntries>[1]);
  const out = output(opts);
  if ('dryRun' in result) {
    out.list(result.invited, previewColumns, 'Nobody is waiting');
    if (out.mode === 'table') out.info(`Dry run: ${result.invited.length} entries would be invited; nothing changed`);
    return;
  }
  const invited = (result as InviteResult).invited;
  out.list(invited, invitedColumns, 'Nobody is waiting: no one was invited');
  if (out.mode === 'table') out.info(`Invited ${invited.length} entries (codes are shown only now; emails go out when SMTP is configured)`);
}
