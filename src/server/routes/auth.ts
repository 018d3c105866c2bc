// Accounts and sessions.
//   GET  /auth/status       authStatus  (public, outside /api: sign-up open? any account yet? signed in?)
//   POST /api/auth/signup   signup
//   POST /api/auth/login    login
//   POST /api/auth/logout   logout      (session)
//   POST /api/auth/logout-all logoutAll (session: ends every session of the user)
//   GET  /api/auth/me       me          (session)
import { parse as parseCookie } from 'cookie';
import type { Polka } from 'polka';
import { loginBody, signupBody } from '../../contract/schemas.js';
import { SESSION_COOKIE } from '../../contract/wire.js';
import { toUser } from '../../core/serialize.js';
import { createSession, endAllSessions, endSession, sessionForToken } from '../../core/sessions.js';
import { unavailable } from '../../core/errors.js';
import { Gate } from '../../core/keys.js';
import * as users from '../../core/users.js';
import { clientIp } from '../client-ip.js';
import { userOf, type Deps, type Req } from '../context.js';
import { readJson, send } from '../http.js';
import { requireSession, setSessionCookie } from '../middleware.js';

/** Passwords checked or hashed at once, and waiting, per server (see `checking` below). */
const PASSWORD_CHECKS = 1;
const PASSWORDS_WAITING = 64;

export function authRoutes(app: Polka<Req>, deps: Deps) {
  const { store, options, authLimiter } = deps;
  // A password is checked or hashed (bcrypt: ~60 ms of a libuv thread and a core) one at a time per
  // server, the waiting ones served round-robin by client address; past PASSWORDS_WAITING waiting, 503
  // with Retry-After. A flood of log-ins or sign-ups from many addresses then cannot fill the thread
  // pool that a join batch's fsync runs on (unbounded, it stalled every join for seconds), as the join
  // keys' own bcrypt budget already ensures for them (src/core/keys.ts).
  const passwords = new Gate(PASSWORD_CHECKS, PASSWORDS_WAITING);
  const checking = async <T>(ip: string, job: () => Promise<T>): Promise<T> => {
    const done = await passwords.run(async () => ({ value: await job() }), ip);
    if (!done) throw unavailable('Too many log-ins and sign-ups being checked right now; retry shortly', 1);
    return done.value;
  };

  app.get('/auth/status', async (req, res) => {
    if (authLimiter) await authLimiter.status(clientIp(req, deps.trust) ?? 'unknown');
    // The session cookie is HttpOnly: the dashboard learns here whether it has one, so a signed-out
    // visit asks nothing that answers 401 (a browser logs every 401 in the console).
    const token = req.headers.cookie ? parseCookie(req.headers.cookie)[SESSION_COOKIE] : undefined;
    const session = token ? await sessionForToken(store, token) : undefined;
    if (token && session?.renewed) setSessionCookie(req, res, deps, token); // sliding expiry, as on /api
    send(res, 200, 'Auth status', { ...(await users.authStatus(store, options.openSignup)), signedIn: session !== undefined });
  });

  app.post('/api/auth/signup', async (req, res) => {
    const body = await readJson(req, signupBody);
    const ip = clientIp(req, deps.trust) ?? 'unknown';
    if (authLimiter) await authLimiter.signup(ip);
    const user = await checking(ip, () => users.signup(store, body, options.openSignup));
    setSessionCookie(req, res, deps, await createSession(store, user.id));
    send(res, 201, 'Account created', toUser(user));
  });

  app.post('/api/auth/login', async (req, res) => {
    const body = await readJson(req, loginBody);
    const email = users.normEmail(body.email);
    const ip = clientIp(req, deps.trust) ?? 'unknown';
    // Counted as a failure before bcrypt runs (a backing-off email+IP, or IP, is refused here, even with
    // the right password); a success gives it back.
    if (authLimiter) await authLimiter.loginAttempt(email, ip);
    const user = await checking(ip, () => users.login(store, body));
    if (authLimiter) await authLimiter.loginSucceeded(email, ip);
    // Always a fresh session at login (no fixation); an old cookie's session is ended.
    if (req.sessionToken) await endSession(store, req.sessionToken);
    setSessionCookie(req, res, deps, await createSession(store, user.id));
    send(res, 200, 'Logged in', toUser(user));
  });

  app.post('/api/auth/logout', requireSession, async (req, res) => {
    await endSession(store, req.sessionToken!);
    setSessionCookie(req, res, deps, '', 0);
    send(res, 200, 'Logged out', null);
  });

  app.post('/api/auth/logout-all', requireSession, async (req, res) => {
    await endAllSessions(store, userOf(req).id);
    setSessionCookie(req, res, deps, '', 0);
    send(res, 200, 'Logged out of every session', null);
  });

  app.get('/api/auth/me', requireSession, (req, res) => {
    send(res, 200, 'Current user', toUser(userOf(req)));
  });
}
