// The sign-up surface's public API for scripts on other sites (publishable key, CORS like join):
//   OPTIONS /v1/waitlist/:slug/challenge   preflight
//   GET     /v1/waitlist/:slug/challenge   getChallenge   a proof-of-work challenge (ALTCHA v1)
//   OPTIONS /v1/waitlist/:slug/form        preflight
//   GET     /v1/waitlist/:slug/form        getForm        what the widget renders: title, fields, captcha
//   GET     /widget.js                     the embeddable widget (built into dist/widget.js)
import type { ServerResponse } from 'node:http';
import type { Polka } from 'polka';
import { challengeFor } from '../../core/captcha.js';
import { AppError } from '../../core/errors.js';
import { projectForJoin } from '../../core/projects.js';
import { featureSettings } from '../../core/settings.js';
import type { ProjectRow } from '../../db/store.js';
import { clientIp } from '../client-ip.js';
import type { Deps, Req } from '../context.js';
import { send } from '../http.js';
import { keyForProject } from '../lifecycle-http.js';
import { surfaceLimit } from '../surface-limit.js';
import { widgetHandler } from '../widget-file.js';
import { CORS, corsFor } from './join.js';

const PREFLIGHT = {
  'Access-Control-Allow-Methods': 'GET, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization',
  'Access-Control-Max-Age': '86400',
};

/** The public form description the widget renders. */
export function publicForm(project: ProjectRow) {
  const s = featureSettings(project);
  return {
    name: project.name,
    title: s.pageTitle ?? project.name,
    description: s.pageDescription,
    fields: s.fields,
    captcha: s.captcha,
  };
}

export function surfaceRoutes(app: Polka<Req>, deps: Deps) {
  const { store } = deps;
  const limit = surfaceLimit(deps);

  /** Key → slug → key's project (the join route's order), then origin and the read limit. */
  async function authorise(req: Req, res: ServerResponse): Promise<ProjectRow> {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    // A secret key from a browser (an Origin header) → 403, as at join; a 401 carries the Bearer challenge.
    const { project } = await keyForProject(deps, req, req.params.slug!, false);
    const ip = clientIp(req, deps.trust);
    if (!corsFor(project, req, res)) throw new AppError('forbidden', 'This waitlist does not accept requests from this origin');
    await limit(project.id, ip);
    return project;
  }

  const preflight = async (req: Req, res: ServerResponse) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    const project = await projectForJoin(store, req.params.slug!);
    if (!project || corsFor(project, req, res)) for (const [k, v] of Object.entries(PREFLIGHT)) res.setHeader(k, v);
    res.writeHead(204);
    res.end();
  };
  app.options('/v1/waitlist/:slug/challenge', preflight);
  app.options('/v1/waitlist/:slug/form', preflight);

  app.get('/v1/waitlist/:slug/challenge', async (req, res) => {
    const project = await authorise(req, res);
    send(res, 200, 'Proof-of-work challenge', await challengeFor(store, project));
  });

  app.get('/v1/waitlist/:slug/form', async (req, res) => {
    const project = await authorise(req, res);
    send(res, 200, 'Sign-up form', publicForm(project));
  });

  const widget = widgetHandler();
  app.get('/widget.js', widget);
  app.head('/widget.js', widget);
}
