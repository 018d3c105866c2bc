// HTTP helpers of the lifecycle routes: key kinds on the public routes, links' base URL, the mailer,
// and the rate limit of the subscriber's token routes.
import type { ServerResponse } from 'node:http';
import { AppError } from '../core/errors.js';
import { bearerKey, parseKey } from '../core/keys.js';
import { publicBase } from '../core/lifecycle.js';
import { getProject, projectForJoin } from '../core/projects.js';
import type { KeyAuthRow, ProjectRow } from '../db/store.js';
import { clientIp, isHttps } from './client-ip.js';
import { bearerChallenge, wrongProjectKey } from './bearer.js';
import type { Deps, Req } from './context.js';
import { JoinLimiter } from './ratelimit.js';

export const notFoundProject = () => new AppError('not_found', 'Waitlist not found');

/** Public CORS for the subscriber's token routes and the leaderboard (no credentials involved). */
export const PUBLIC_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Retry-After, RateLimit, RateLimit-Policy, X-Request-Id',
  'Cache-Control': 'no-store',
};

export function setHeaders(res: ServerResponse, headers: Record<string, string>) {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
}

/**
 * The base URL of links (emails, referral links): --public-url / WAITLIST_PUBLIC_URL, else the URL the
 * server listens on (the line it prints). Never the request's Host header: anyone can send
 * `Host: evil.example` with a victim's address and have the confirmation email point there. The
 * request's origin is used only by an app mounted without listening (tests that call createApp).
 */
export function baseUrl(deps: Deps, req: Req): string {
  return publicBase(deps.options.publicUrl || deps.publicBaseUrl() || undefined, req.headers.host, isHttps(req, deps.trust));
}

/** Whether the server can send email (--smtp-url): emails are queued in the outbox only then. */
export const smtpConfigured = (deps: Deps): boolean => deps.mailer !== null;

/**
 * Authenticates a public route's key for `slug` (CONTRACT.md order: key → slug → key's project), then
 * the kind rules of LIFECYCLE.md: `secretOnly` routes refuse publishable keys (403); a secret key sent
 * by a browser (any Origin header) is refused everywhere (403), so a secret leaked into a page fails loudly.
 */
export async function keyForProject(
  deps: Deps,
  req: Req,
  slug: string,
  secretOnly: boolean,
): Promise<{ key: KeyAuthRow; project: ProjectRow }> {
  const ip = clientIp(req, deps.trust);
  const key = await bearerChallenge(deps.keys.verify(req.headers.authorization, deps.authLimiter?.keyGuard(ip ?? 'unknown')));
  const project = await projectForJoin(deps.store, slug);
  if (!project) throw notFoundProject();
  if (key.projectId !== project.id) throw wrongProjectKey();
  checkKind(key, req, secretOnly);
  return { key, project };
}

/** 403 for a publishable key on a secret-only route, and for a secret key sent from a browser. */
export function checkKind(key: KeyAuthRow, req: Req, secretOnly: boolean) {
  if (secretOnly && key.kind !== 'secret') {
    throw new AppError('forbidden', 'This route needs a secret key (wl_sk_…); publishable keys may only join');
  }
  if (key.kind === 'secret' && req.headers.origin !== undefined) throw secretFromBrowser();
}

const secretFromBrowser = () => new AppError('forbidden', 'Secret keys must not be used from a browser: call this from your server');

/**
 * On a route that takes no key (a subscriber's token routes): a secret key sent along from a browser (an
 * Origin header) is refused all the same (403), by its shape (`wl_sk_…`, not checked against the
 * database), so that a secret pasted into a page fails loudly on every route (LIFECYCLE.md).
 */
export function refuseSecretFromBrowser(req: Req) {
  if (req.headers.origin !== undefined && parseKey(bearerKey(req.headers.authorization) ?? '')?.kind === 'secret')
    throw secretFromBrowser();
}

const limiters = new WeakMap<Deps, Map<string, JoinLimiter>>();
/**
 * Rate limit of the token routes (status, confirm, leave): the join limits, counted separately. One
 * limiter per server and name, so the subscriber API and the subscriber pages spend one budget.
 */
export function selfLimiter(deps: Deps, name: 'self' | 'board' = 'self'): JoinLimiter | null {
  if (!deps.joinLimiter) return null;
  let byName = limiters.get(deps);
  if (!byName) {
    byName = new Map();
    limiters.set(deps, byName);
  }
  let l = byName.get(name);
  if (!l) {
    l = new JoinLimiter(deps.store, deps.joinLimiter.points, deps.joinLimiter.windowSec, name);
    byName.set(name, l);
  }
  return l;
}

export async function limitSelf(limiter: JoinLimiter | null, deps: Deps, req: Req, res: ServerResponse, projectId: string) {
  if (!limiter) return;
  setHeaders(res, await limiter.consume(projectId, clientIp(req, deps.trust) ?? 'unknown'));
}

/** Before a settings PUT: doubleOptIn needs SMTP (409 smtp_not_configured). Answers the project as it was. */
export async function checkLifecycleSettings(deps: Deps, userId: string, idOrSlug: string, body: { doubleOptIn?: boolean }) {
  if (body.doubleOptIn === true && !smtpConfigured(deps)) {
    throw new AppError('smtp_not_configured', 'Double opt-in sends confirmation emails: start the server with --smtp-url first');
  }
  return getProject(deps.store, userId, idOrSlug);
}
