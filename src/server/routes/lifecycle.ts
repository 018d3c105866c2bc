// The lifecycle's management routes (session; another user's project is 404).
//   POST /api/project/:projectId/invites       inviteEntries   {count} | {entryIds} [, dryRun]
//   GET  /api/project/:projectId/leaderboard   getLeaderboard  top referrers with full entries
import type { Polka } from 'polka';
import { inviteBody } from '../../contract/lifecycle.js';
import { inviteEntries } from '../../core/invites.js';
import { leaderboard, withPositions } from '../../core/lifecycle.js';
import { getProject } from '../../core/projects.js';
import { userOf, type Deps, type Req } from '../context.js';
import { readJson, send } from '../http.js';
import { baseUrl, smtpConfigured } from '../lifecycle-http.js';

export function lifecycleRoutes(app: Polka<Req>, deps: Deps) {
  const { store } = deps;
  const project = (req: Req) => getProject(store, userOf(req).id, req.params.projectId!);

  app.post('/api/project/:projectId/invites', async (req, res) => {
    const p = await project(req);
    // Room for the largest batch by id (10,000 entry ids, ~330 KB), which the 16 KiB default refused at ~500.
    const body = await readJson(req, inviteBody, [], 512 * 1024);
    const result = await inviteEntries(store, p, body, { smtp: smtpConfigured(deps), base: baseUrl(deps, req) });
    send(res, 200, body.dryRun ? 'These entries would be invited' : 'Invited', result);
  });

  app.get('/api/project/:projectId/leaderboard', async (req, res) => {
    const p = await project(req);
    const rows = await leaderboard(store, p.id, 100);
    const entries = await withPositions(store, p.id, rows);
    send(
      res,
      200,
      'Leaderboard',
      entries.map((e, i) => ({ rank: i + 1, ...e })),
    );
  });
}
