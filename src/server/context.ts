// What the routes receive: the request type (with the session's user) and the app's dependencies.
import type { Request } from 'polka';
import type { Store, UserRow } from '../db/store.js';
import type { KeyVerifier } from '../core/keys.js';
import type { JoinLimiter } from './ratelimit.js';

export interface Req extends Request {
  id?: string;
  user?: UserRow;
  sessionToken?: string;
}

export interface ServerOptions {
  openSignup: boolean;
  trustProxy: boolean;
  rateLimit: boolean;
  /** Joins allowed per client IP per project per window. */
  joinLimit: number;
  joinWindowSec: number;
}

export interface Deps {
  store: Store;
  options: ServerOptions;
  keys: KeyVerifier;
  joinLimiter: JoinLimiter | null;
}

/** The signed-in user of a request that passed requireSession. */
export function userOf(req: Req): UserRow {
  if (!req.user) throw new Error('requireSession did not run before this handler');
  return req.user;
}
