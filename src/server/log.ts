// Logging: an opt-in access log (one line per request, batched into one write per event-loop turn)
// and error descriptions that never carry request data. Nothing here prints headers, bodies, query
// strings, cookies, keys or passwords.
import type { ServerResponse } from 'node:http';
import type { NextHandler } from 'polka';
import type { Req } from './context.js';

let pending: string[] = [];
const flush = () => {
  const lines = pending.join('');
  pending = [];
  process.stdout.write(lines);
};

// Control characters would let a crafted path forge log lines.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a log line must not carry
export const clean = (s: string) => s.replace(/[\x00-\x1f\x7f]/g, '?').slice(0, 300);

// The one route whose path carries a secret: an invite code being checked (GET …/invites/:code).
const SECRET_SEGMENT = /^(\/v1\/waitlist\/[^/]+\/invites\/)(?!redeem\/?$)[^/]+/i;

/** A request path as logs may show it: cleaned, and an invite code in it replaced by `:code`. */
export const logPath = (path: string | undefined) => clean((path ?? '').replace(SECRET_SEGMENT, '$1:code'));

/** Access log: `time id METHOD /path status ms` on stdout, once the response is done or aborted. */
export function accessLog(req: Req, res: ServerResponse, next: NextHandler) {
  const start = performance.now();
  res.once('close', () => {
    const ms = (performance.now() - start).toFixed(1);
    const status = res.writableFinished ? String(res.statusCode) : `${res.statusCode}-aborted`;
    const line = `${new Date().toISOString()} ${req.id ?? '-'} ${req.method} ${logPath(req.path)} ${status} ${ms}ms\n`;
    if (pending.push(line) === 1) setImmediate(flush);
  });
  return next();
}

/** An error's class, message and code, without a database driver's query parameters (which hold user data). */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const e = err as Error & { query?: string; params?: unknown; cause?: unknown; code?: string };
  if (e.query !== undefined && e.params !== undefined) {
    // drizzle's DrizzleQueryError puts every bound value in its message: log the query and the cause only.
    return `query failed: ${clean(e.query)}\n  cause: ${describeError(e.cause)}`;
  }
  return `${e.stack ?? `${e.name}: ${e.message}`}${e.code ? ` (code ${e.code})` : ''}`;
}
