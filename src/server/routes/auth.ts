// Accounts and sessions.
//   POST /api/auth/signup   signup
//   POST /api/auth/login    login
//   POST /api/auth/logout   logout      (session)
//   GET  /api/auth/me       me          (session)
import type { ServerResponse } from 'node:http';
import type { Polka } from 'polka';
import { serialize } from 'cookie';
import { loginBody, signupBody } from '../../contract/schemas.js';
import { toUser } from '../../core/serialize.js';
import { createSession, endSession, SESSION_TTL_MS } from '../../core/sessions.js';
import * as users from '../../core/users.js';
import { userOf, type Deps, type Req } from '../context.js';
import { readJson, send } from '../http.js';
import { isHttps, requireSession, SESSION_COOKIE } from '../middleware.js';

export function authRoutes(app: Polka<Req>, deps: Deps) {
  const { store, options } = deps;

  const setCookie = (req: Req, res: ServerResponse, token: string, maxAgeSec: number) => {
    res.setHeader(
      'Set-Cookie',
      serialize(SESSION_COOKIE, token, {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: isHttps(req, options.trustProxy),
        maxAge: maxAgeSec,
      }),
    );
  };

  app.post('/api/auth/signup', async (req, res) => {
    const body = await readJson(req, signupBody);
    const user = await users.signup(store, body, options.openSignup);
    setCookie(req, res, await createSession(store, user.id), SESSION_TTL_MS / 1000);
    send(res, 201, 'Account created', toUser(user));
  });

  app.post('/api/auth/login', async (req, res) => {
    const body = await readJson(req, loginBody);
    const user = await users.login(store, body);
    // Always a fresh session at login (no fixation); an old cookie's session is ended.
    if (req.sessionToken) await endSession(store, req.sessionToken);
    setCookie(req, res, await createSession(store, user.id), SESSION_TTL_MS / 1000);
    send(res, 200, 'Logged in', toUser(user));
  });

  app.post('/api/auth/logout', requireSession, async (req, res) => {
    await endSession(store, req.sessionToken!);
    setCookie(req, res, '', 0);
    send(res, 200, 'Logged out', null);
  });

  app.post('/api/auth/logout-all', requireSession, async (req, res) => {
    await store.deleteUserSessions(userOf(req).id);
    setCookie(req, res, '', 0);
    send(res, 200, 'Logged out of every session', null);
  });

  app.get('/api/auth/me', requireSession, (req, res) => {
    send(res, 200, 'Current user', toUser(userOf(req)));
  });
}
