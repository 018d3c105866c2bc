// `waitlist entry invite`: the next N waiting entries (queue order) or the given ids, in one batch.
import type { InvitedEntry, InvitePreview, InviteResult } from '../../contract/lifecycle.js';
import { inviteBody } from '../../contract/lifecycle.js';
import { ApiError } from '../../client/index.js';
import { output, sessionClient, validate, type JsonOpt } from '../context.js';
import { CliError, EXIT } from '../errors.js';
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

/** `1 entry`, `2 entries`. */
const entries = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'entry' : 'entries'}`;

const argName = (n: number, id: string | undefined) => `entry ${n + 1}${id === undefined ? '' : ` (${id})`}`;

/**
 * The server names a bad id by its place in the body (`entryIds.0`); the user typed arguments, so name
 * it as the argument: `entry 1 (ent_…)`.
 */
function byArgument(err: ApiError, entryIds: string[]): ApiError {
  if (!err.issues.some((i) => /^entryIds\.\d+$/.test(i.path))) return err;
  const issues = err.issues.map((i) => {
    const m = /^entryIds\.(\d+)$/.exec(i.path);
    if (!m) return i;
    const n = Number(m[1]);
    return { ...i, path: argName(n, entryIds[n]) };
  });
  return new ApiError(err.status, err.code, err.message, issues, err.reason);
}

export async function inviteEntries(entryIds: string[], opts: InviteOpts) {
  if ((opts.next === undefined) === (entryIds.length === 0)) {
    throw new CliError('give either --next N or entry ids', EXIT.usage);
  }
  const body = validate(
    inviteBody,
    { ...(opts.next !== undefined ? { count: opts.next } : { entryIds }), ...(opts.dryRun ? { dryRun: true } : {}) },
    { count: '--next', entryIds: '<entryIds…>', ...Object.fromEntries(entryIds.map((id, n) => [`entryIds.${n}`, argName(n, id)])) },
  );
  const client = await sessionClient();
  const result = await client.inviteEntries(opts.project, body as Parameters<typeof client.inviteEntries>[1]).catch((err: unknown) => {
    throw err instanceof ApiError ? byArgument(err, entryIds) : err;
  });
  const out = output(opts);
  if ('dryRun' in result) {
    out.list(result.invited, previewColumns, 'Nobody is waiting');
    if (out.mode === 'table') out.info(`Dry run: ${entries(result.invited.length)} would be invited; nothing changed`);
    return;
  }
  const invited = (result as InviteResult).invited;
  out.list(invited, invitedColumns, 'Nobody is waiting: no one was invited');
  if (out.mode === 'table')
    out.info(`Invited ${entries(invited.length)} (codes are shown only now; emails go out when SMTP is configured)`);
}
