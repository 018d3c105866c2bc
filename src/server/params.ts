// Every path parameter and query value is checked here, once, before any route sees it: a NUL byte
// (PostgreSQL refuses it in text, SQLite would store it) or a lone UTF-16 surrogate (not encodable as
// UTF-8: PostgreSQL would store U+FFFD, SQLite invalid bytes) never reaches the database. A bad path
// id answers 404 like any unknown id; a bad query value answers 400 naming the parameter.
import type { ServerResponse } from 'node:http';
import type { NextHandler } from 'polka';
import { AppError } from '../core/errors.js';
import { storableText, wellFormed } from '../core/text.js';
import type { Req } from './context.js';
import { validationFailed } from './http.js';

const values = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : typeof v === 'string' ? [v] : []);

/** Middleware: 404 for a path parameter, 400 for a query value, that is not storable text. */
export function checkParams(req: Req, _res: ServerResponse, next: NextHandler) {
  for (const v of Object.values(req.params ?? {})) {
    if (typeof v === 'string' && !storableText(v)) throw new AppError('not_found', 'Not found');
  }
  const bad = Object.entries(req.query ?? {}).filter(([k, v]) => !storableText(k) || values(v).some((s) => !storableText(s)));
  if (bad.length) {
    throw validationFailed(
      bad.map(([k]) => ({ path: storableText(k) ? k : '?', message: 'Must not contain NUL characters or unpaired surrogates' })),
    );
  }
  return next();
}

/** The dotted paths of every string (keys included) in a JSON value that holds an unpaired surrogate. */
export function lonePaths(value: unknown, path = '', out: string[] = [], depth = 0): string[] {
  if (depth > 64) return out;
  if (typeof value === 'string') {
    if (!wellFormed(value)) out.push(path);
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) lonePaths(v, path ? `${path}.${i}` : String(i), out, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}.${k}` : k;
      if (!wellFormed(k)) out.push(path || '?');
      else lonePaths(v, p, out, depth + 1);
    }
  }
  return out;
}
