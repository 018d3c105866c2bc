// Envelope writing, strict JSON body reading, query parsing, and the one error → response mapping.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ZodError, type z } from 'zod';
import type { ErrorCode, Issue } from '../contract/types.js';
import { LIMITS } from '../contract/schemas.js';
import { AppError, unavailable } from '../core/errors.js';
import { DatabaseUnavailableError } from '../db/errors.js';
import type { Req } from './context.js';
import { describeError, logPath } from './log.js';
import { html, sendPage } from './pages/html.js';
import { logUnavailable } from './outage-log.js';
import { unstorablePaths } from '../core/text.js';
import { isUtf8 } from 'node:buffer';

/** Top-level body keys whose strings may hold NUL: stored as escaped JSON (a join's metadata). */
const NUL_KEPT = ['metadata'];

export { AppError };

/** Writes a success envelope. */
export function send(res: ServerResponse, status: number, message: string, data: unknown): void {
  const body = JSON.stringify({ status: 'success', message, data, timestamp: Date.now() });
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Writes an error envelope for an AppError (issues only on validation failures). */
export function sendError(res: ServerResponse, err: AppError): void {
  const error: { code: string; issues?: Issue[] } = { code: err.code };
  if (err.issues?.length) error.issues = err.issues;
  const body = JSON.stringify({ status: 'error', message: err.message, error, timestamp: Date.now() });
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  res.statusCode = err.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** What a page for people says when it cannot be shown: a title and a sentence, by error code. */
const PAGE_TEXT: Partial<Record<ErrorCode, [string, string]>> = {
  not_found: ['Page not found', 'There is no waitlist page at this address. Check the link you followed.'],
  rate_limited: ['Too many requests', 'Please wait a moment, then try again.'],
  service_unavailable: ['Try again shortly', 'The waitlist cannot answer right now. Please try again in a moment.'],
  internal: ['Something went wrong', 'The waitlist could not show this page. Please try again later.'],
};

/**
 * The error, as the request wants it: the pages for people (`/w/…`, the hosted page and the subscriber's
 * pages) answer a browser (an `Accept` naming text/html) with a short page of the same status, and every
 * other request, or any client that does not ask for HTML, with the envelope.
 */
export function sendErrorFor(req: IncomingMessage & { path?: string }, res: ServerResponse, err: AppError): void {
  const path = req.path ?? req.url ?? '';
  if (!path.startsWith('/w/') || !/\btext\/html\b/i.test(String(req.headers.accept ?? ''))) return sendError(res, err);
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  const [title, text] = PAGE_TEXT[err.code] ?? ['Something went wrong', err.message];
  sendPage(res, { status: err.status, title, body: html`<h1>${title}</h1><p>${text}</p>` });
}

/**
 * One issue per offending field, `path` dotted; unknown and immutable keys named one by one, and first:
 * `{"slug": "x"}` to a project update is about `slug` before it is about the `name` it lacks.
 */
export function zodIssues(err: ZodError, readOnly: readonly string[] = []): Issue[] {
  const unknown: Issue[] = [];
  const out: Issue[] = [];
  for (const i of err.issues) {
    const base = i.path.map(String);
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys) {
        const path = [...base, key].join('.');
        unknown.push({ path, message: readOnly.includes(key) ? `${key} cannot be changed` : `Unknown field "${key}"` });
      }
    } else {
      const path = base.join('.');
      if (!out.some((o) => o.path === path)) out.push({ path, message: i.message });
    }
  }
  return [...unknown, ...out.filter((o) => !unknown.some((u) => u.path === o.path))];
}

export const validationFailed = (issues: Issue[]) => new AppError('validation_failed', 'Validation failed', issues);

/** True when the request carries a body (declared length > 0 or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export function isJsonType(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  if (!type) return false;
  const mime = type.split(';', 1)[0]!.trim().toLowerCase();
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

/** How long a connection closed on an unread body keeps draining what the client still sends. */
const LINGER_MS = 1000;

/**
 * For a refusal that closes the connection while the client is still sending its body (every AppError
 * with `Connection: close`, answered by onError before the body was read: 413, 415): once the answer
 * is written, the server half-closes and keeps reading and discarding for up to LINGER_MS before it
 * destroys the socket. Destroying it at once, as Node does after a `Connection: close`
 * response, closes a socket with unread data: the kernel then sends a reset, which can overtake the
 * answer, and the client saw the connection drop without its 413 (a flaky test on a busy machine).
 */
function lingerClose(req: IncomingMessage): void {
  const socket: Socket | null = req.socket;
  if (!socket || socket.destroyed) return;
  socket.destroySoon = function (this: Socket) {
    if (this.writable) this.end();
    this.resume();
    const timer = setTimeout(() => this.destroy(), LINGER_MS).unref();
    this.once('close', () => clearTimeout(timer));
  };
}

/** Reads the raw body, refusing with 413 as soon as it passes `limit` bytes (whatever Content-Length says). */
export function readBody(req: IncomingMessage, limit: number = LIMITS.bodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        cleanup();
        req.resume(); // drain and discard the rest; the response closes the connection
        reject(tooLarge(limit));
        return;
      }
      chunks.push(c);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (e: Error & { code?: string }) => {
      cleanup();
      // The client went away mid-body (Node reports "aborted", ECONNRESET): not a server error.
      reject(e.code === 'ECONNRESET' || req.destroyed ? new ClientGoneError() : e);
    };
    // Closed before 'end' (possibly before these listeners were attached): the client is gone.
    const onClose = () => {
      if (req.complete) return;
      cleanup();
      reject(new ClientGoneError());
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    if (req.destroyed && !req.complete) {
      reject(new ClientGoneError());
      return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The client closed the connection before sending its whole body. */
export class ClientGoneError extends Error {
  constructor() {
    super('client closed the connection before sending the whole body');
    this.name = 'ClientGoneError';
  }
}

const tooLarge = (limit: number) =>
  new AppError('payload_too_large', `Request body must be at most ${limit} bytes`, undefined, { Connection: 'close' });

/** Reads and validates a JSON body: 413 too large, 415 not JSON, 400 invalid_json, 400 validation_failed. */
export async function readJson<S extends z.ZodType>(
  req: IncomingMessage,
  schema: S,
  readOnly: readonly string[] = [],
  limit: number = LIMITS.bodyBytes,
): Promise<z.output<S>> {
  return validateBody(await readJsonValue(req, limit), schema, readOnly);
}

/**
 * The JSON body, parsed but not validated: 413 over `limit`, 415 not JSON (`typeMessage`: the 415's
 * message, for a route that takes other types too), 400 invalid_json.
 */
export async function readJsonValue(
  req: IncomingMessage,
  limit: number = LIMITS.bodyBytes,
  typeMessage = 'Content-Type must be application/json',
): Promise<unknown> {
  if (Number(req.headers['content-length']) > limit) throw tooLarge(limit);
  if (!isJsonType(req)) {
    throw new AppError('unsupported_media_type', typeMessage, undefined, hasBody(req) ? { Connection: 'close' } : undefined);
  }
  const raw = await readBody(req, limit);
  // JSON is UTF-8 (RFC 8259): other bytes would be read as U+FFFD and stored so, silently.
  if (!isUtf8(raw)) throw new AppError('invalid_json', 'Request body is not valid UTF-8');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('invalid_json', 'Request body is not valid JSON');
  }
}

/** Validates an already-parsed body like readJson does (object, no NUL in strings, the schema). */
export function validateBody<S extends z.ZodType>(value: unknown, schema: S, readOnly: readonly string[] = []): z.output<S> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationFailed([{ path: '', message: 'Request body must be a JSON object' }]);
  }
  // Text columns cannot hold NUL (PostgreSQL refuses it), wherever the string sits in the body (a
  // template, a field's label, an id in a list); only `metadata` is stored as escaped JSON and keeps it.
  // A lone surrogate cannot be encoded as UTF-8: it would be stored as U+FFFD or as invalid bytes.
  const { nul, lone } = unstorablePaths(value, NUL_KEPT);
  if (nul.length) throw validationFailed([...new Set(nul)].map((path) => ({ path, message: 'Must not contain NUL characters' })));
  if (lone.length)
    throw validationFailed([...new Set(lone)].map((path) => ({ path, message: 'Must not contain unpaired UTF-16 surrogates' })));
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationFailed(zodIssues(parsed.error, readOnly));
  return parsed.data;
}

/** Validates `req.query` against a schema, answering 400 validation_failed. */
export function parseQuery<S extends z.ZodType>(req: Req, schema: S): z.output<S> {
  const parsed = schema.safeParse(req.query ?? {});
  if (!parsed.success) throw validationFailed(zodIssues(parsed.error));
  return parsed.data;
}

/** Polka's onError: AppError → its envelope; anything else → logged, generic 500. */
export function onError(err: unknown, req: Req, res: ServerResponse): void {
  if (err instanceof ClientGoneError) {
    // Routine on the internet: one info line, no stack, nobody to answer.
    console.log(`[${req.id ?? '-'}] ${req.method} ${logPath(req.path)}: ${err.message}`);
    res.destroy();
    return;
  }
  if (res.headersSent) {
    if (!(err instanceof AppError)) console.error(`[${req.id ?? '-'}] error after response started: ${describeError(err)}`);
    res.destroy();
    return;
  }
  if (err instanceof AppError) {
    if (err.headers?.Connection === 'close' && !req.complete) lingerClose(req);
    return sendErrorFor(req, res, err);
  }
  if (err instanceof ZodError) return sendErrorFor(req, res, validationFailed(zodIssues(err)));
  if (err instanceof DatabaseUnavailableError) {
    logUnavailable(req.id ?? '-', req.method ?? '-', logPath(req.path), err.message);
    return sendErrorFor(req, res, unavailable('The database is unavailable; try again shortly', err.retryAfterSeconds));
  }
  console.error(`[${req.id ?? '-'}] ${req.method} ${logPath(req.path)}: internal error: ${describeError(err)}`);
  sendErrorFor(req, res, new AppError('internal', 'Internal server error'));
}

/** Polka's onNoMatch: an envelope 404 for unknown routes (a page for a browser under /w/). */
export function onNoMatch(req: Req, res: ServerResponse): void {
  sendErrorFor(req, res, new AppError('not_found', `No route for ${req.method} ${req.path}`));
}
