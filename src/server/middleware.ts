// Request-wide middleware: request id and security headers; the /api guard (Origin, content type,
// session loading) and requireSession, which is what answers 401.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { NextHandler } from 'polka';
import { parse as parseCookie } from 'cookie';
import { userForToken } from '../core/sessions.js';
import { AppError } from '../core/errors.js';
import type { Deps, Req } from './context.js';
import { hasBody, isJsonType } from './http.js';

export const SESSION_COOKIE = 'waitlist_session';

let counter = 0;
const idBase = randomBytes(3).toString('hex');

/** Gives each request an id (echoed as X-Request-Id) and the headers every response carries. */
export function baseHeaders(req: Req, res: ServerResponse, next: NextHandler) {
  req.id = `${idBase}-${(++counter).toString(36)}`;
  res.setHeader('X-Request-Id', req.id);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  return next();
}

/** Whether the request reached us over HTTPS (directly, or per the proxy when it is trusted). */
export function isHttps(req: Req, trustProxy: boolean): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  if (!trustProxy) return false;
  const proto = req.headers['x-forwarded-proto'];
  return typeof proto === 'string' && proto.split(',', 1)[0]!.trim().toLowerCase() === 'https';
}

/** Guards /api: no cross-origin calls, JSON bodies only, and loads the session (never fails on it). */
export function apiGuard(deps: Deps) {
  return async (req: Req, res: ServerResponse, next: NextHandler) => {
    if (!req.path.startsWith('/api/') && req.path !== '/api') return next();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const own = `${isHttps(req, deps.options.trustProxy) ? 'https' : 'http'}://${req.headers.host ?? ''}`;
      if (origin.toLowerCase() !== own.toLowerCase()) {
        throw new AppError('forbidden', 'Cross-origin requests to the management API are not allowed');
      }
    }
    if (hasBody(req) && !isJsonType(req)) {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json', undefined, { Connection: 'close' });
    }
    const cookieHeader = req.headers.cookie;
    if (cookieHeader) {
      const token = parseCookie(cookieHeader)[SESSION_COOKIE];
      if (token) {
        const user = await userForToken(deps.store, token);
        if (user) {
          req.user = user;
          req.sessionToken = token;
        }
      }
    }
    return next();
  };
}

/** Answers 401 unless apiGuard found a live session. */
export function requireSession(req: Req, _res: ServerResponse, next: NextHandler) {
  if (!req.user) throw new AppError('unauthorized', 'Log in first: no valid session');
  return next();
}
