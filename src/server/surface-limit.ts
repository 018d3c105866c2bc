// The rate limit of the sign-up surface's public reads (hosted page views, form configuration,
// captcha challenges): per client IP per project, five times the join limit over the join window, so a
// person loading a page, fetching a challenge and joining never meets it, and a script hammering the
// reads does. Joins themselves (hosted page included) count against the join limit.
import { RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../core/errors.js';
import type { Deps } from './context.js';
import { limitKey } from './ratelimit.js';

export type SurfaceLimit = (projectId: string, ip: string | null) => Promise<void>;

/** The surface's read limiter for these deps (a no-op when rate limiting is off). */
export function surfaceLimit(deps: Deps): SurfaceLimit {
  if (!deps.joinLimiter) return async () => undefined;
  const points = deps.options.joinLimit * 5;
  const windowSec = deps.options.joinWindowSec;
  const limiter = deps.store.rateLimiter({ keyPrefix: 'surface', points, duration: windowSec });
  return async (projectId, ip) => {
    try {
      await limiter.consume(`${projectId}|${limitKey(ip ?? 'unknown')}`);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const retry = String(Math.max(1, Math.ceil(e.msBeforeNext / 1000)));
      throw new AppError('rate_limited', `Too many requests from this address; try again in ${retry} s`, undefined, {
        'Retry-After': retry,
        'RateLimit-Policy': `"surface";q=${points};w=${windowSec}`,
      });
    }
  };
}
