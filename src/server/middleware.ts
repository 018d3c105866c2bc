// Request-wide middleware: request id and security headers; the /api guard (Origin, content type,
// session loading) and requireSession, which is what answers 401.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { NextHandler } from 'polka';
import { parse as parseCookie, serialize } from 'cookie';
import { sessionForToken, SESSION_TTL_MS } from '../core/sessions.js';
import { SESSION_COOKIE } from '../contract/wire.js';
import { AppError } from '../core/errors.js';
import type { Deps, Req } from './context.js';
import { isHttps } from './client-ip.js';
import { hasBody, isJsonType } from './http.js';

let counter = 0;
const idBase = randomBytes(3).toString('hex');

/** Gives each request an id (echoed as X-Request-Id) and the headers every response carries. */
export function baseHeaders(req: Req, res: ServerResponse, next: NextHandler) {
  req.id = `${idBase}-${(++counter).toString(36)}`;
  res.setHeader('X-Request-Id', req.id);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  // Pages may tighten this (the dashboard sets its own policy); nothing here is meant to be framed.
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
  return next();
}

/** Sets (or, with an empty token and 0, clears) the session cookie; Secure when the request came over HTTPS. */
export function setSessionCookie(req: Req, res: ServerResponse, deps: Deps, token: string, maxAgeSec = SESSION_TTL_MS / 1000) {
  res.setHeader(
    'Set-Cookie',
    serialize(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', path: '/', secure: isHttps(req, deps.trust), maxAge: maxAgeSec }),
  );
}

/** Guards /api: no cross-origin calls, JSON bodies only, and loads the session (never fails on it). */
export function apiGuard(deps: Deps) {
  return async (req: Req, res: ServerResponse, next: NextHandler) => {
    // Routing ignores case (`/API/auth/login` reaches the login route), so this test must too.
    const path = req.path.toLowerCase();
    if (!path.startsWith('/api/') && path !== '/api') return next();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    // DNS rebinding: a page whose name now points here sends a matching Host and Origin; only the
    // names this server is configured to answer to are accepted (src/server/hosts.ts).
    if (deps.hosts && !deps.hosts.allows(req.headers.host)) {
      throw new AppError('forbidden', 'This server does not answer to that Host name; add it with --public-url or --allowed-hosts');
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const own = `${isHttps(req, deps.trust) ? 'https' : 'http'}://${req.headers.host ?? ''}`.toLowerCase();
      const o = origin.toLowerCase();
      if (o !== own && o !== deps.hosts?.publicOrigin) {
        throw new AppError('forbidden', 'Cross-origin requests to the management API are not allowed');
      }
    }
    // The import route's body is the file itself (CSV or NDJSON); it checks its own content type.
    const upload = req.method === 'POST' && /^\/api\/project\/[^/]+\/import$/.test(req.path);
    if (hasBody(req) && !isJsonType(req) && !upload) {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json', undefined, { Connection: 'close' });
    }
    const cookieHeader = req.headers.cookie;
    if (cookieHeader) {
      const token = parseCookie(cookieHeader)[SESSION_COOKIE];
      if (token) {
        const found = await sessionForToken(deps.store, token);
        if (found) {
          req.user = found.user;
          req.sessionToken = token;
          // Sliding expiry: the server extended the session, so the browser's cookie follows.
          if (found.renewed) setSessionCookie(req, res, deps, token);
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
