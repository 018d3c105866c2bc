// What the routes receive: the request type (with the session's user) and the app's dependencies.
import type { Request } from 'polka';
import type { Store, UserRow } from '../db/store.js';
import type { KeyVerifier } from '../core/keys.js';
import type { Dispatcher } from '../core/dispatcher.js';
import type { Mailer } from '../core/mailer.js';
import type { Trust } from './client-ip.js';
import type { HostPolicy } from './hosts.js';
import type { AuthLimiter, JoinLimiter, RateLimitOptions } from './ratelimit.js';
import type { ReadinessCheck } from './readiness.js';

export interface Req extends Request {
  id?: string;
  user?: UserRow;
  sessionToken?: string;
}

export interface ServerOptions extends RateLimitOptions {
  openSignup: boolean;
  /** false; true (trust loopback and private networks); or the trusted proxies' addresses/CIDRs. */
  trustProxy: boolean | string[];
  rateLimit: boolean;
  /** Print one access-log line per request (method, path, status, ms, request id). */
  logRequests?: boolean;
  /** Seconds allowed to receive a request's headers / the whole request / a whole import upload (default 3600). */
  headersTimeoutSec?: number;
  requestTimeoutSec?: number;
  importTimeoutSec?: number;
  /**
   * The server's public base URL (--public-url / WAITLIST_PUBLIC_URL): the base of every link the server
   * sends out (emails; default: the URL it listens on), and its host and origin are accepted on /api.
   */
  publicUrl?: string;
  /** Extra Host names accepted on /api (--allowed-hosts / WAITLIST_ALLOWED_HOSTS): `name` or `name:port`. */
  allowedHosts?: string[] | undefined;
  /** Events layer: SMTP server (smtp[s]://user:pass@host:port), sender, and webhooks to private addresses. */
  smtpUrl?: string;
  mailFrom?: string;
  allowPrivateWebhooks?: boolean;
}

export interface Deps {
  store: Store;
  options: ServerOptions;
  keys: KeyVerifier;
  /** Compiled from options.trustProxy; null when no proxy is trusted. */
  trust: Trust | null;
  joinLimiter: JoinLimiter | null;
  authLimiter: AuthLimiter | null;
  /** Host names accepted on /api (DNS-rebinding guard); absent = any. */
  hosts?: HostPolicy;
  /** Delivers the outbox (webhooks, emails) after commit. */
  dispatcher: Dispatcher;
  /** null when the server has no SMTP (--smtp-url). */
  mailer: Mailer | null;
  /** Base of the links the server sends out (emails), no trailing slash: --public-url, else the listening URL. */
  publicBaseUrl: () => string;
  /** Readiness checks beside the database's own (GET /readyz), e.g. an outbox backlog. */
  readiness?: ReadinessCheck[];
}

/** The signed-in user of a request that passed requireSession. */
export function userOf(req: Req): UserRow {
  if (!req.user) throw new Error('requireSession did not run before this handler');
  return req.user;
}
