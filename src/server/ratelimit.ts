// Join rate limit: a fixed number of joins per client IP per project per window, counted in the
// database's shared limiter store (memory for SQLite, a table for PostgreSQL).
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Store } from '../db/store.js';
import { AppError } from '../core/errors.js';

export class JoinLimiter {
  private readonly limiter: RateLimiterAbstract;
  constructor(store: Store, readonly points: number, readonly windowSec: number) {
    this.limiter = store.rateLimiter({ keyPrefix: 'join', points, duration: windowSec });
  }

  /** Counts one join; resolves with the headers to send, or throws 429 rate_limited. */
  async consume(projectId: string, ip: string): Promise<Record<string, string>> {
    try {
      const r = await this.limiter.consume(`${projectId}|${ip}`);
      return this.headers(r);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const retry = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      throw new AppError('rate_limited', `Too many sign-ups from this address; try again in ${retry} s`, undefined, {
        ...this.headers(e),
        'Retry-After': String(retry),
      });
    }
  }

  private headers(r: RateLimiterRes): Record<string, string> {
    const reset = Math.max(0, Math.ceil(r.msBeforeNext / 1000));
    return {
      'RateLimit-Policy': `"join";q=${this.points};w=${this.windowSec}`,
      RateLimit: `"join";r=${Math.max(0, r.remainingPoints)};t=${reset}`,
    };
  }
}
