// Rate limits, all counted in the database's shared limiter store (memory for SQLite, a table for
// PostgreSQL), so several instances on one database enforce one limit:
//   join    a fixed number of joins per client IP per project per window
//   login   per email+IP: a few consecutive failures are free, then each failure blocks that pair for
//           1 s, 2 s, 4 s … up to a cap; a success resets it. Per IP: failed logins per window.
//   signup  accounts created (or attempted) per IP per hour
//   key     join keys with a known id but a wrong secret, per IP (each costs a bcrypt comparison);
//           counted before the comparison runs, given back when the secret was right
// A 429 carries Retry-After and the RateLimit-Policy / RateLimit headers (IETF draft syntax).
import { isIP } from 'node:net';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Store } from '../db/store.js';
import { sha256 } from '../core/crypto.js';
import { AppError } from '../core/errors.js';
import type { BcryptGuard } from '../core/keys.js';

export interface RateLimitOptions {
  /** Joins allowed per client IP per project per window. */
  joinLimit: number;
  joinWindowSec: number;
  /** Consecutive failed logins per email+IP before the back-off starts. */
  loginFreeFailures: number;
  /** Longest back-off between login attempts, in seconds. */
  loginMaxBlockSec: number;
  /** Failed logins allowed per IP per window. */
  loginIpLimit: number;
  loginIpWindowSec: number;
  /** Sign-ups allowed per IP per hour. */
  signupLimit: number;
}

export const RATE_LIMIT_DEFAULTS: RateLimitOptions = {
  joinLimit: 60,
  joinWindowSec: 60,
  loginFreeFailures: 5,
  loginMaxBlockSec: 900,
  loginIpLimit: 100,
  loginIpWindowSec: 900,
  signupLimit: 100,
};

// Wrong secrets for a real key id only come from tampering; legitimate clients never hit this.
const BAD_KEY_LIMIT = 20;
const BAD_KEY_WINDOW_SEC = 60;
// The dashboard reads the auth status once per page load: a generous per-IP minute budget.
const STATUS_LIMIT = 120;

/**
 * The address a limit counts against: an IPv4 address, or the /64 network of an IPv6 address (one
 * subscriber line usually gets a whole /64, so single IPv6 addresses are free to rotate).
 */
export function limitKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  if (right.some((g) => g.includes('.')) || left.some((g) => g.includes('.'))) return ip; // embedded IPv4: keep whole
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const retrySec = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
const policy = (name: string, q: number, w: number) => `"${name}";q=${q};w=${w}`;
const state = (name: string, remaining: number, ms: number) =>
  `"${name}";r=${Math.max(0, remaining)};t=${Math.max(0, Math.ceil(ms / 1000))}`;

function limited(message: string, name: string, q: number, w: number, ms: number): AppError {
  return new AppError('rate_limited', `${message}; try again in ${retrySec(ms)} s`, undefined, {
    'Retry-After': String(retrySec(ms)),
    'RateLimit-Policy': policy(name, q, w),
    RateLimit: state(name, 0, ms),
  });
}

export class JoinLimiter {
  private readonly limiter: RateLimiterAbstract;
  constructor(
    store: Store,
    readonly points: number,
    readonly windowSec: number,
    /** Counter namespace: `join`, `self` for the subscriber's status/confirm/leave routes, `board` for the public leaderboard. */
    private readonly name = 'join',
  ) {
    this.limiter = store.rateLimiter({ keyPrefix: name, points, duration: windowSec });
  }

  /** Counts one join; resolves with the headers to send, or throws 429 rate_limited. */
  async consume(projectId: string, ip: string): Promise<Record<string, string>> {
    try {
      const r = await this.limiter.consume(`${projectId}|${limitKey(ip)}`);
      return {
        'RateLimit-Policy': policy(this.name, this.points, this.windowSec),
        RateLimit: state(this.name, r.remainingPoints, r.msBeforeNext),
      };
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const what = this.name === 'join' ? 'sign-ups' : 'requests';
      throw limited(`Too many ${what} from this address`, this.name, this.points, this.windowSec, e.msBeforeNext);
    }
  }
}

/** Log-in and sign-up limits. */
export class AuthLimiter {
  private readonly fails: RateLimiterAbstract; // consecutive failures per email+IP (reset on success)
  private readonly blocks: RateLimiterAbstract; // current back-off per email+IP
  private readonly ipFails: RateLimiterAbstract;
  private readonly signups: RateLimiterAbstract;
  private readonly badKeys: RateLimiterAbstract;
  private readonly statuses: RateLimiterAbstract;

  constructor(
    store: Store,
    private readonly o: RateLimitOptions,
  ) {
    this.statuses = store.rateLimiter({ keyPrefix: 'auth-status', points: STATUS_LIMIT, duration: 60 });
    this.fails = store.rateLimiter({ keyPrefix: 'login-fail', points: 1_000_000, duration: 86_400 });
    this.blocks = store.rateLimiter({ keyPrefix: 'login-block', points: 1, duration: 1 });
    this.ipFails = store.rateLimiter({ keyPrefix: 'login-ip', points: o.loginIpLimit, duration: o.loginIpWindowSec });
    this.signups = store.rateLimiter({ keyPrefix: 'signup', points: o.signupLimit, duration: 3600 });
    this.badKeys = store.rateLimiter({ keyPrefix: 'bad-key', points: BAD_KEY_LIMIT, duration: BAD_KEY_WINDOW_SEC });
  }

  /**
   * Guards the join key's bcrypt comparison: each check is counted as a failure BEFORE it runs (so a
   * burst cannot slip extra checks past the count) and given back when the key turns out right;
   * 429 once an IP has no wrong secrets left.
   */
  keyGuard(ip: string): BcryptGuard {
    const key = limitKey(ip);
    return {
      client: key,
      before: async () => {
        try {
          await this.badKeys.consume(key);
        } catch (e) {
          if (!(e instanceof RateLimiterRes)) throw e;
          throw limited('Too many invalid API keys from this address', 'bad-key', BAD_KEY_LIMIT, BAD_KEY_WINDOW_SEC, e.msBeforeNext);
        }
      },
      succeeded: async () => {
        await this.badKeys.reward(key, 1).catch(() => undefined);
      },
    };
  }

  // Hashed: bounded length (the PostgreSQL key column is varchar(255)) and no emails in the store.
  private pair = (emailNorm: string, ip: string) => sha256(`${emailNorm}|${limitKey(ip)}`);

  /**
   * Before a log-in's bcrypt comparison: counts the attempt as a failure of this IP and of this email+IP
   * now (so a burst of concurrent guesses cannot slip past the counts, as it could when failures were
   * counted after bcrypt: 50 at once were all checked), and throws 429 when the IP has failed too often
   * or the pair is backing off. Past the free failures each attempt must take the back-off gate, which
   * lets one through and closes for 1 s, 2 s, 4 s … (doubling, up to the maximum); an attempt refused
   * there is not counted. loginSucceeded gives the attempt back.
   */
  async loginAttempt(emailNorm: string, ip: string): Promise<void> {
    const pair = this.pair(emailNorm, ip);
    const ipKey = limitKey(ip);
    try {
      await this.ipFails.consume(ipKey);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      throw limited('Too many failed log-ins from this address', 'login-ip', this.o.loginIpLimit, this.o.loginIpWindowSec, e.msBeforeNext);
    }
    const over = (await this.fails.consume(pair)).consumedPoints - this.o.loginFreeFailures;
    if (over <= 0) return;
    try {
      await this.blocks.consume(pair, 1, { customDuration: Math.min(2 ** Math.min(over - 1, 30), this.o.loginMaxBlockSec) });
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      await Promise.all([this.fails.reward(pair, 1), this.ipFails.reward(ipKey, 1)]).catch(() => undefined);
      throw limited('Too many failed log-ins for this account', 'login', this.o.loginFreeFailures, this.o.loginMaxBlockSec, e.msBeforeNext);
    }
  }

  /** A successful log-in: the attempt is given back, and the email+IP failure count and back-off cleared. */
  async loginSucceeded(emailNorm: string, ip: string): Promise<void> {
    const key = this.pair(emailNorm, ip);
    await Promise.all([this.fails.delete(key), this.blocks.delete(key), this.ipFails.reward(limitKey(ip), 1).catch(() => undefined)]);
  }

  /** Counts one public auth-status read from an IP, or throws 429. */
  async status(ip: string): Promise<void> {
    try {
      await this.statuses.consume(limitKey(ip));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      throw limited('Too many requests from this address', 'auth-status', STATUS_LIMIT, 60, e.msBeforeNext);
    }
  }

  /** Counts one sign-up attempt from an IP, or throws 429. */
  async signup(ip: string): Promise<void> {
    try {
      await this.signups.consume(limitKey(ip));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      throw limited('Too many sign-ups from this address', 'signup', this.o.signupLimit, 3600, e.msBeforeNext);
    }
  }
}
