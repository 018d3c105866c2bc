// Sessions: a 256-bit random token in the cookie, only its SHA-256 in the database, sliding expiry.
import { DatabaseUnavailableError } from '../db/errors.js';
import type { Store, UserRow } from '../db/store.js';
import { randomToken, sha256 } from './crypto.js';

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
// Extend at most once a day, so a busy dashboard does not write on every request.
const EXTEND_AFTER_MS = 24 * 3600 * 1000;

/** Starts a session for the user and returns the token to put in the cookie. */
export async function createSession(store: Store, userId: string): Promise<string> {
  const token = randomToken(32);
  const now = Date.now();
  await store.insertSession({ tokenHash: sha256(token), userId, createdAt: now, expiresAt: now + SESSION_TTL_MS });
  return token;
}

/** The user of a live session token, extending the session when due (`renewed`); undefined otherwise. */
export async function sessionForToken(store: Store, token: string): Promise<{ user: UserRow; renewed: boolean } | undefined> {
  if (!token || token.length > 200) return undefined;
  const hash = sha256(token);
  const now = Date.now();
  const found = await store.sessionByHash(hash, now);
  if (!found) return undefined;
  const renewed = found.session.expiresAt - now < SESSION_TTL_MS - EXTEND_AFTER_MS;
  if (!renewed) return { user: found.user, renewed };
  // Best effort: a read must keep working while the database cannot take writes (locked, disk full).
  const extended = await store.extendSession(hash, now + SESSION_TTL_MS).then(
    () => true,
    (err: unknown) => {
      if (err instanceof DatabaseUnavailableError) return false;
      throw err;
    },
  );
  return { user: found.user, renewed: extended };
}

/** The user of a live session token, extending the session when due; undefined otherwise. */
export async function userForToken(store: Store, token: string): Promise<UserRow | undefined> {
  return (await sessionForToken(store, token))?.user;
}

/** Revokes one session server-side. */
export async function endSession(store: Store, token: string): Promise<void> {
  await store.deleteSession(sha256(token));
}

/** Revokes every session of a user (log out everywhere). */
export async function endAllSessions(store: Store, userId: string): Promise<void> {
  await store.deleteUserSessions(userId);
}
