// Sessions: a new session id at every login (no fixation), logout-all ends every session of the
// user, sliding expiry (checked against the SQLite file), and expired sessions answer 401.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Client, signedUp, uniqueEmail, useServer } from '../helpers/server.js';

const srv = useServer({ args: ['--open-signup'] });

const DAY = 86_400_000;
const tokenOf = (c: Client) => c.cookie.split('=')[1]!;
const hash = (t: string) => createHash('sha256').update(t).digest('hex');
const withDb = <T>(fn: (db: Database.Database) => T): T => {
  const db = new Database(srv.dbFile);
  try {
    return fn(db);
  } finally {
    db.close();
  }
};
const expiresAt = (token: string) =>
  withDb(
    (db) => (db.prepare('SELECT expires_at AS e FROM sessions WHERE token_hash = ?').get(hash(token)) as { e: number } | undefined)?.e,
  );

describe('sessions', () => {
  it('login issues a new session id and ends the session the request came with', async () => {
    const email = uniqueEmail();
    const a = await signedUp(srv.url, email, 'password1');
    const before = a.cookie;
    expect(tokenOf(a).length).toBeGreaterThanOrEqual(43); // 256 bits, base64url
    expect((await a.post('/api/auth/login', { email, password: 'password1' })).status).toBe(200);
    expect(a.cookie).not.toBe(before);
    const stale = new Client(srv.url);
    stale.cookie = before;
    expect((await stale.get('/api/auth/me')).status).toBe(401);
    expect((await a.get('/api/auth/me')).status).toBe(200);
    expect(withDb((db) => db.prepare('SELECT count(*) AS n FROM sessions WHERE token_hash = ?').get(tokenOf(a)))).toEqual({ n: 0 }); // only hashes stored
  });

  it('POST /api/auth/logout-all ends every session of that user, and only that user', async () => {
    const email = uniqueEmail();
    const a = await signedUp(srv.url, email, 'password1');
    const b = new Client(srv.url);
    expect((await b.post('/api/auth/login', { email, password: 'password1' })).status).toBe(200);
    const someoneElse = await signedUp(srv.url);
    const out = await a.post('/api/auth/logout-all');
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/waitlist_session=;.*Max-Age=0/);
    const ghost = new Client(srv.url);
    ghost.cookie = b.cookie;
    expect((await ghost.get('/api/auth/me')).status).toBe(401);
    expect((await a.get('/api/auth/me')).status).toBe(401);
    expect((await someoneElse.get('/api/auth/me')).status).toBe(200);
    expect((await new Client(srv.url).post('/api/auth/logout-all')).status).toBe(401);
  });

  it('sliding expiry: a session used after a day is extended to 30 days and the cookie re-sent', async () => {
    const a = await signedUp(srv.url);
    const token = tokenOf(a);
    const fresh = await a.get('/api/auth/me');
    expect(fresh.headers.get('set-cookie')).toBeNull(); // young session: no write, no cookie
    const aged = Date.now() + 28 * DAY; // as if it was last extended two days ago
    withDb((db) => db.prepare('UPDATE sessions SET expires_at = ? WHERE token_hash = ?').run(aged, hash(token)));
    const r = await a.get('/api/auth/me');
    expect(r.status).toBe(200);
    expect(r.headers.get('set-cookie')).toMatch(/waitlist_session=.*Max-Age=2592000/);
    expect(expiresAt(token)!).toBeGreaterThan(Date.now() + 29.9 * DAY);
  });

  it('an expired session answers 401', async () => {
    const a = await signedUp(srv.url);
    withDb((db) => db.prepare('UPDATE sessions SET expires_at = ? WHERE token_hash = ?').run(Date.now() - 1, hash(tokenOf(a))));
    const r = await a.get('/api/auth/me');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
  });
});
