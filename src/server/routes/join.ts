// The public join endpoint, called from subscribers' browsers with a publishable key.
//   OPTIONS /v1/waitlist/:slug/join   preflight (CORS)
//   POST    /v1/waitlist/:slug/join   joinWaitlist (JSON → envelope; a plain form post → 303, see forms.ts)
// Order of checks (docs/api.md): key → slug → key's project → [origin list → rate limit] → body (+ honeypot,
// disposable domains) → duplicate → 201.
import type { ServerResponse } from 'node:http';
import type { Polka } from 'polka';
import { AppError } from '../../core/errors.js';
import { projectForJoin } from '../../core/projects.js';
import { originAllowed } from '../../core/settings.js';
import { checkKind } from '../lifecycle-http.js';
import type { ProjectRow } from '../../db/store.js';
import { bearerChallenge, wrongProjectKey } from '../bearer.js';
import { clientIp } from '../client-ip.js';
import type { Deps, Req } from '../context.js';
import { formTarget, isFormType, readForm, redirect303 } from '../forms.js';
import { readJsonValue, send } from '../http.js';
import { completeJoin, validateJoin } from '../join-flow.js';
import { limitKey } from '../ratelimit.js';

export { clientIp };

export const CORS = {
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
/** The join's 415: it takes a form post too (LIFECYCLE.md). */
const JOIN_TYPES = 'Content-Type must be application/json, or a form post (application/x-www-form-urlencoded)';

/** CORS for a project with an origin list: echo an allowed Origin, withhold approval otherwise. */
export function corsFor(project: ProjectRow, req: Req, res: ServerResponse): boolean {
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
    if (isFormType(req)) return joinByForm(req, res);
    const project = await authorise(req, res, req.headers.authorization);
    const body = validateJoin(project, await readJsonValue(req, undefined, JOIN_TYPES));
    const r = await completeJoin(deps, req, project, key(req), body);
    send(res, 201, r.message, r.data);
  });

  /** Checks 1-3 of the contract's order (key → slug → key's project), key kind, origin, rate limit. */
  async function authorise(req: Req, res: ServerResponse, authorization: string | undefined): Promise<ProjectRow> {
    const ip = clientIp(req, deps.trust);
    const k = await bearerChallenge(keys.verify(authorization, authLimiter?.keyGuard(ip ?? 'unknown') ?? noLimit(ip ?? 'unknown')));
    const project = await projectForJoin(store, req.params.slug!);
    if (!project) throw notFoundProject();
    if (k.projectId !== project.id) throw wrongProjectKey();
    checkKind(k, req, false); // a secret key sent from a browser → 403
    if (!corsFor(project, req, res)) throw new AppError('forbidden', 'This waitlist does not accept sign-ups from this origin');
    if (joinLimiter) {
      const headers = await joinLimiter.consume(project.id, ip ?? 'unknown');
      for (const [h, v] of Object.entries(headers)) res.setHeader(h, v);
    }
    keyIds.set(req, k.id);
    return project;
  }
  const keyIds = new WeakMap<Req, string>();
  const key = (req: Req) => keyIds.get(req)!;

  /** A plain <form> post: the key in a `key` field (or the header); the answer is a 303 either way. */
  async function joinByForm(req: Req, res: ServerResponse) {
    // The key is inside the body, so the (≤ 16 KiB) body is read first; the checks keep their order.
    const form = await readForm(req);
    const auth = form.key !== undefined ? `Bearer ${form.key}` : req.headers.authorization;
    let project: ProjectRow | undefined;
    try {
      project = await authorise(req, res, auth);
      const body = validateJoin(project, form.body);
      const { data } = await completeJoin(deps, req, project, key(req), body);
      redirect303(res, formTarget(project, { ok: true, statusToken: data.statusToken }));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      project ??= await projectForJoin(store, req.params.slug!);
      if (!project) throw err; // no project to send the browser back to: the envelope 404
      redirect303(res, formTarget(project, { ok: false, error: err }), err.headers);
    }
  }
}
