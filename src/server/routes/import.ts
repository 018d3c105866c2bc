// Bulk import into one of the user's projects (session). The body is the file itself, streamed: any
// size, flat memory (see src/core/import/).
//   POST /api/project/:projectId/import?format=csv|ndjson[&dryRun=true][&dateFormat=auto|dmy|mdy]   importEntries
import type { Polka } from 'polka';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { IMPORT_FORMATS, importStream } from '../../core/import/run.js';
import { getProject } from '../../core/projects.js';
import { clientIp } from '../client-ip.js';
import { userOf, type Deps, type Req } from '../context.js';
import { allowRequestFor } from '../deadline.js';
import { ClientGoneError, parseQuery, send } from '../http.js';
import { limitKey } from '../ratelimit.js';

const single = <T extends string>(name: string, values: readonly T[], fallback: T | undefined) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return fallback;
      if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as T;
      ctx.addIssue({ code: 'custom', message: `${name} must be one of ${values.join(', ')}` });
      return z.NEVER;
    });

export const importQuery = z.object({
  format: single('format', IMPORT_FORMATS, undefined),
  dryRun: single('dryRun', ['true', 'false', '1', '0'] as const, 'false').transform((v) => v === 'true' || v === '1'),
  dateFormat: single('dateFormat', ['auto', 'dmy', 'mdy'] as const, 'auto'),
});

/** Content types an import upload may carry (the body is the file as it is). */
export const IMPORT_TYPES = [
  'text/csv',
  'application/csv',
  'text/plain',
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/json',
  'application/octet-stream',
];

const mimeOf = (req: Req) =>
  String(req.headers['content-type'] ?? '')
    .split(';', 1)[0]!
    .trim()
    .toLowerCase();

/**
 * Imports one account may run at once, and one client address (an IPv4 address or an IPv6 /64): each
 * holds a connection for up to --import-timeout, so with --open-signup a stranger could otherwise
 * open them by the hundred. Over either, 429 at once, before the body is read.
 */
export const IMPORTS_PER_ACCOUNT = 4;
export const IMPORTS_PER_ADDRESS = 8;

/** Counts what is running per key; `take` is false (and counts nothing) once a key is at its limit. */
class Running {
  private readonly n = new Map<string, number>();
  constructor(private readonly limit: number) {}
  take(key: string): boolean {
    const have = this.n.get(key) ?? 0;
    if (have >= this.limit) return false;
    this.n.set(key, have + 1);
    return true;
  }
  give(key: string): void {
    const have = this.n.get(key) ?? 0;
    if (have <= 1) this.n.delete(key);
    else this.n.set(key, have - 1);
  }
}

const tooMany = (what: string) =>
  new AppError('rate_limited', `${what} already running; try again once one has finished`, undefined, {
    'Retry-After': '10',
    Connection: 'close',
  });

export function importRoutes(app: Polka<Req>, { store, options, trust }: Deps) {
  const byAccount = new Running(IMPORTS_PER_ACCOUNT);
  const byAddress = new Running(IMPORTS_PER_ADDRESS);
  app.post('/api/project/:projectId/import', async (req, res) => {
    const account = userOf(req).id;
    const project = await getProject(store, account, req.params.projectId!);
    const q = parseQuery(req, importQuery);
    const mime = mimeOf(req);
    if (mime && !IMPORT_TYPES.includes(mime)) {
      throw new AppError(
        'unsupported_media_type',
        `Send the file itself as the body (Content-Type: text/csv or application/x-ndjson), not ${mime}`,
        undefined,
        { Connection: 'close' },
      );
    }
    const format = q.format ?? (mime.includes('json') ? 'ndjson' : 'csv');
    const address = limitKey(clientIp(req, trust) ?? 'unknown');
    if (!byAccount.take(account)) throw tooMany(`${IMPORTS_PER_ACCOUNT} imports of this account are`);
    if (!byAddress.take(address)) {
      byAccount.give(account);
      throw tooMany(`${IMPORTS_PER_ADDRESS} imports from this address are`);
    }
    try {
      // The project's owner and a well-formed request, known now: the file gets --import-timeout to
      // arrive, not --request-timeout. An import refused on the way (a file without an email column)
      // gives the rest of its body --request-timeout again.
      allowRequestFor(req, (options.importTimeoutSec ?? 3600) * 1000);
      const refused = () => allowRequestFor(req, (options.requestTimeoutSec ?? 30) * 1000);
      const result = await importStream(store, project, req, { format, dryRun: q.dryRun, dateFormat: q.dateFormat ?? 'auto' }).catch(
        (err: NodeJS.ErrnoException) => {
          // The body cut off (the client gone, or the request timeout answered 408 and closed it): an info
          // line like any body read, not an internal error. The batches written before it stay.
          // (Not `req.destroyed`: a request read to its end is destroyed too.)
          refused();
          throw !(err instanceof AppError) && err.code === 'ECONNRESET' ? new ClientGoneError() : err;
        },
      );
      const what = q.dryRun ? 'Dry run: nothing was written' : `Imported ${result.imported} ${result.imported === 1 ? 'entry' : 'entries'}`;
      send(res, 200, what, result);
    } finally {
      byAccount.give(account);
      byAddress.give(address);
    }
  });
}
