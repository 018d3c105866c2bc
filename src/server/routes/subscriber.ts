// The lifecycle's public routes: the subscriber's token routes (no key: the token is the credential),
// the public leaderboard (publishable key) and invite redeem/check (secret key, from a backend).
//   GET  /v1/waitlist/:slug/status?token=…        getStatus
//   POST /v1/waitlist/:slug/confirm {token}       confirm
//   POST /v1/waitlist/:slug/leave {token}         leave
//   GET  /v1/waitlist/:slug/leaderboard           publicLeaderboard   (404 while publicLeaderboard is off)
//   POST /v1/waitlist/:slug/invites/redeem {code} redeemInvite        (secret key)
//   GET  /v1/waitlist/:slug/invites/:code         checkInvite         (secret key)
// Token routes are rate limited per IP and project like joins (a separate counter).
import type { ServerResponse } from 'node:http';
import type { Polka } from 'polka';
import { z } from 'zod';
import { redeemBody, tokenBody } from '../../contract/lifecycle.js';
import { AppError } from '../../core/errors.js';
import { checkInvite, redeemInvite } from '../../core/invites.js';
import * as lc from '../../core/lifecycle.js';
import { projectForJoin } from '../../core/projects.js';
import { featureSettings } from '../../core/settings.js';
import type { Deps, Req } from '../context.js';
import { parseQuery, readJson, send } from '../http.js';
import {
  baseUrl,
  keyForProject,
  limitSelf,
  notFoundProject,
  PUBLIC_CORS,
  refuseSecretFromBrowser,
  selfLimiter,
  setHeaders,
} from '../lifecycle-http.js';

export const tokenQuery = z.object({
  token: z.string('token is required').trim().min(1, 'token is required').max(200, 'token is too long'),
});

const PREFLIGHT = {
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Max-Age': '86400',
};

export function subscriberRoutes(app: Polka<Req>, deps: Deps) {
  const { store } = deps;
  const limiter = selfLimiter(deps);
  const boardLimiter = selfLimiter(deps, 'board'); // its own counter: a page polling it spends no one's token budget
  /** The start of every token route: CORS for any origin, the slug's live project (else 404), the rate limit. */
  const tokenRoute = async (req: Req, res: ServerResponse) => {
    setHeaders(res, PUBLIC_CORS);
    refuseSecretFromBrowser(req); // no key needed here, but a secret one sent from a page fails loudly
    const project = await projectForJoin(store, req.params.slug!);
    if (!project) throw notFoundProject();
    await limitSelf(limiter, deps, req, res, project.id);
    return project;
  };

  for (const path of ['status', 'confirm', 'leave', 'leaderboard']) {
    app.options(`/v1/waitlist/:slug/${path}`, (_req, res) => {
      setHeaders(res, { ...PUBLIC_CORS, ...PREFLIGHT });
      res.writeHead(204);
      res.end();
    });
  }

  app.get('/v1/waitlist/:slug/status', async (req, res) => {
    const project = await tokenRoute(req, res);
    const { token } = parseQuery(req, tokenQuery);
    send(res, 200, 'Your place on the waitlist', await lc.statusByToken(store, project, token, baseUrl(deps, req)));
  });

  app.post('/v1/waitlist/:slug/confirm', async (req, res) => {
    const project = await tokenRoute(req, res);
    const { token } = await readJson(req, tokenBody);
    const row = await lc.confirmEntry(store, project, token, baseUrl(deps, req));
    send(res, 200, 'Your email is confirmed', await lc.publicView(store, project, row, baseUrl(deps, req)));
  });

  app.post('/v1/waitlist/:slug/leave', async (req, res) => {
    const project = await tokenRoute(req, res);
    const { token } = await readJson(req, tokenBody);
    send(res, 200, 'You have left the waitlist; your data is erased', await lc.leave(store, project, token));
  });

  app.get('/v1/waitlist/:slug/leaderboard', async (req, res) => {
    setHeaders(res, PUBLIC_CORS);
    const { project } = await keyForProject(deps, req, req.params.slug!, false);
    await limitSelf(boardLimiter, deps, req, res, project.id);
    if (!featureSettings(project).publicLeaderboard) throw new AppError('not_found', 'This waitlist has no public leaderboard');
    const rows = await lc.leaderboard(store, project.id, 10);
    send(
      res,
      200,
      'Leaderboard',
      rows.map((r, i) => ({ rank: i + 1, name: lc.publicName(r.name, r.email), referrals: r.referrals })),
    );
  });

  app.post('/v1/waitlist/:slug/invites/redeem', async (req, res) => {
    const { project } = await keyForProject(deps, req, req.params.slug!, true);
    const { code } = await readJson(req, redeemBody);
    send(res, 200, 'Invite redeemed', await redeemInvite(store, project, code));
  });

  app.get('/v1/waitlist/:slug/invites/:code', async (req, res) => {
    const { project } = await keyForProject(deps, req, req.params.slug!, true);
    send(res, 200, 'Invite', await checkInvite(store, project, req.params.code!));
  });
}
