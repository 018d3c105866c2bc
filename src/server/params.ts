// Every path parameter and query value is checked here, once, before any route sees it: a NUL byte
// (PostgreSQL refuses it in text, SQLite would store it) or a lone UTF-16 surrogate (not encodable as
// UTF-8: PostgreSQL would store U+FFFD, SQLite invalid bytes) never reaches the database. A bad path
// id answers 404 like any unknown id; a bad query value answers 400 naming the parameter.
import type { ServerResponse } from 'node:http';
import type { NextHandler } from 'polka';
import { AppError } from '../core/errors.js';
import { storableText } from '../core/text.js';
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
