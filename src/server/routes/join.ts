// The public join endpoint, called from subscribers' browsers with a publishable key.
//   OPTIONS /v1/waitlist/:slug/join   preflight (CORS)
//   POST    /v1/waitlist/:slug/join   joinWaitlist
// Order of checks (docs/api.md): key → slug → key's project → [origin list → rate limit] → body (+ honeypot,
// disposable domains) → duplicate → 201.
import type { ServerResponse } from 'node:http';
import type { Polka } from 'polka';
import { DEFAULT_SOURCE, joinWaitlist } from '../../core/entries.js';
import { AppError } from '../../core/errors.js';
import { countryOf } from '../../core/geo.js';
import { newId } from '../../core/ids.js';
import { newReferralCode, newSecret, positionOf, referralUrlOf, resendIfPending, subscriberLinks, waitingTotal } from '../../core/lifecycle.js';
import { projectForJoin } from '../../core/projects.js';
import { checkDisposable, featureSettings, honeypotFilled, joinSchemaFor, originAllowed } from '../../core/settings.js';
import { normEmail } from '../../core/users.js';
import { baseUrl, checkKind } from '../lifecycle-http.js';
import type { ProjectRow } from '../../db/store.js';
import { bearerChallenge, wrongProjectKey } from '../bearer.js';
import { clientIp } from '../client-ip.js';
import type { Deps, Req } from '../context.js';
import { readJson, send } from '../http.js';
import { limitKey } from '../ratelimit.js';

export { clientIp };

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Retry-After, RateLimit, RateLimit-Policy, X-Request-Id',
  'Cache-Control': 'no-store',
};
const PREFLIGHT = {
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Max-Age': '86400',
};

/** Without rate limits the client still gets its share of bcrypt checks (KeyVerifier's per-client cap). */
const noLimit = (ip: string) => ({ client: limitKey(ip), before: async () => {}, succeeded: async () => {} });

const notFoundProject = () => new AppError('not_found', 'Waitlist not found');

/** CORS for a project with an origin list: echo an allowed Origin, withhold approval otherwise. */
function corsFor(project: ProjectRow, req: Req, res: ServerResponse): boolean {
  if (!project.allowedOrigins) return true; // any origin: the '*' already set stands
  res.setHeader('Vary', 'Origin');
  const origin = req.headers.origin;
  if (origin !== undefined && originAllowed(project, origin)) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    return true;
  }
  res.removeHeader('Access-Control-Allow-Origin');
  return origin === undefined; // no Origin: not a browser's cross-origin call
}

export function joinRoutes(app: Polka<Req>, deps: Deps) {
  const { store, keys, joinLimiter, authLimiter } = deps;

  app.options('/v1/waitlist/:slug/join', async (req, res: ServerResponse) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    const project = await projectForJoin(store, req.params.slug!);
    if (!project || corsFor(project, req, res)) for (const [k, v] of Object.entries(PREFLIGHT)) res.setHeader(k, v);
    res.writeHead(204);
    res.end();
  });

  app.post('/v1/waitlist/:slug/join', async (req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    const ip = clientIp(req, deps.trust);
    const key = await bearerChallenge(
      keys.verify(req.headers.authorization, authLimiter?.keyGuard(ip ?? 'unknown') ?? noLimit(ip ?? 'unknown')),
    );
    const project = await projectForJoin(store, req.params.slug!);
    if (!project) throw notFoundProject();
    if (key.projectId !== project.id) throw wrongProjectKey();
    checkKind(key, req, false); // a secret key sent from a browser → 403
    if (!corsFor(project, req, res)) throw new AppError('forbidden', 'This waitlist does not accept sign-ups from this origin');
    if (joinLimiter) {
      const headers = await joinLimiter.consume(project.id, ip ?? 'unknown');
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    }
    const body = await readJson(req, joinSchemaFor(project));
    if (honeypotFilled(project, body)) {
      // A bot: answer like a success (same fields, plausible values), store nothing.
      const pending = featureSettings(project).doubleOptIn;
      const code = newReferralCode();
      send(res, 201, pending ? 'Check your inbox to confirm your email' : 'You are on the waitlist', {
        entryId: newId('ent'),
        email: body.email,
        name: body.name ? body.name : null,
        source: body.source ?? DEFAULT_SOURCE,
        createdAt: new Date().toISOString(),
        status: pending ? 'pending' : 'waiting',
        position: pending ? null : (await waitingTotal(store, project.id)) + 1,
        referralCode: code,
        referralUrl: referralUrlOf(project, baseUrl(deps, req), code),
        statusToken: newSecret(),
      });
      return;
    }
    checkDisposable(project, body.email);
    const ua = req.headers['user-agent'];
    const base = baseUrl(deps, req);
    const entry = await joinWaitlist(
      store,
      {
        projectId: project.id,
        project,
        keyId: key.id,
        ip,
        country: ip ? countryOf(ip) : null,
        userAgent: ua ? ua.slice(0, 512) : null,
        links: (statusToken, confirmToken) => ({
          confirmUrl: `${base}/w/${project.slug}/confirm?token=${encodeURIComponent(confirmToken)}`,
          ...subscriberLinks(project, base, statusToken),
        }),
      },
      body,
    ).catch(async (err: unknown) => {
      // A still-pending email joining again: resend its confirmation (throttled), answer 409 as before.
      if (err instanceof AppError && err.code === 'email_taken' && featureSettings(project).doubleOptIn) {
        await resendIfPending(store, project, normEmail(body.email), base).catch(() => undefined);
      }
      throw err;
    });
    const position = await positionOf(store, entry);
    send(res, 201, entry.status === 'pending' ? 'Check your inbox to confirm your email' : 'You are on the waitlist', {
      entryId: entry.id,
      email: entry.email,
      name: entry.name,
      source: entry.source,
      createdAt: new Date(entry.createdAt).toISOString(),
      status: entry.status,
      position,
      referralCode: entry.referralCode,
      referralUrl: referralUrlOf(project, base, entry.referralCode!),
      statusToken: entry.statusToken,
    });
  });
}
