// The hosted sign-up page (project setting `hostedPage`, default on; off → 404). The page has no API
// key: its form posts to the server, which joins on behalf of the project with the join route's checks
// after the key (origin does not apply: it is the server's own page), its rate limit, the honeypot,
// disposable domains, captcha and custom fields.
//   GET  /w/:slug             showHostedPage   (?ref=CODE carried into the join; ?status=joined, ?error=CODE)
//   POST /w/:slug             joinFromHostedPage  a form post; answers with the page (result or errors)
//   GET  /w/:slug/challenge   getPageChallenge the page's proof-of-work challenge (no key)
import type { ServerResponse } from 'node:http';
import type { Polka } from 'polka';
import { challengeFor } from '../../core/captcha.js';
import { projectForJoin } from '../../core/projects.js';
import { AppError } from '../../core/errors.js';
import { featureSettings, joinSchemaFor } from '../../core/settings.js';
import type { ProjectRow } from '../../db/store.js';
import { clientIp } from '../client-ip.js';
import type { Deps, Req } from '../context.js';
import { isFormType, readForm } from '../forms.js';
import { send } from '../http.js';
import { completeJoin, validateJoin } from '../join-flow.js';
import { type FormValues, messageFor, redirectedMessageFor, sendHosted } from '../pages/hosted.js';
import { html, sendPage } from '../pages/html.js';
import { surfaceLimit } from '../surface-limit.js';

const REF_RE = /^[A-Za-z0-9_-]{1,100}$/;
const one = (v: unknown) => (typeof v === 'string' ? v : undefined);

function valuesOf(body: Record<string, unknown>): FormValues {
  const out: FormValues = {};
  for (const k of ['email', 'name'] as const) if (typeof body[k] === 'string') out[k] = body[k];
  const fields = body.fields as Record<string, unknown> | undefined;
  if (fields) for (const [k, v] of Object.entries(fields)) if (typeof v === 'string') out[`fields.${k}`] = v;
  return out;
}

export function hostedRoutes(app: Polka<Req>, deps: Deps) {
  const { store, joinLimiter } = deps;
  const limit = surfaceLimit(deps);

  const notFound = () => new AppError('not_found', 'Waitlist not found');
  async function pageProject(req: Req): Promise<ProjectRow> {
    const project = await projectForJoin(store, req.params.slug!);
    if (!project || !featureSettings(project).hostedPage) throw notFound();
    return project;
  }

  app.get('/w/:slug', async (req, res) => {
    const status = one(req.query?.status);
    const error = one(req.query?.error);
    const known = error !== undefined && /^[a-z_]{1,40}$/.test(error);
    const project = await projectForJoin(store, req.params.slug!);
    // With the page off, only a plain form's redirect (no redirectUrl set, docs/signup.md) is answered:
    // with the outcome alone, not a 404.
    const outcomeOnly = project !== undefined && !featureSettings(project).hostedPage;
    if (!project || (outcomeOnly && status !== 'joined' && !known)) throw notFound();
    await limit(project.id, clientIp(req, deps.trust));
    if (outcomeOnly) {
      const title = known ? 'Your sign-up did not go through' : 'You are on the waitlist';
      const text = known ? redirectedMessageFor(error) : 'Thanks for joining.';
      // 200 either way, as with the page on: this GET itself went through; the join it reports on was answered 303.
      sendPage(res, { status: 200, title, body: html`<h1>${title}</h1><p class="muted">${project.name}</p><p>${text}</p>` });
      return;
    }
    const ref = one(req.query?.ref);
    sendHosted(res, project, {
      ref: ref && REF_RE.test(ref) ? ref : undefined,
      joined: status === 'joined' ? {} : undefined, // no address here: the card says "You have joined the waitlist."
      error: known ? redirectedMessageFor(error) : undefined,
    });
  });

  app.post('/w/:slug', async (req, res: ServerResponse) => {
    const project = await pageProject(req);
    if (!isFormType(req)) throw new AppError('unsupported_media_type', 'Send the form as application/x-www-form-urlencoded');
    const form = await readForm(req);
    const ref = one(form.body.ref);
    const view = { values: valuesOf(form.body), ref: ref && REF_RE.test(ref) ? ref : undefined };
    try {
      if (joinLimiter) {
        for (const [h, v] of Object.entries(await joinLimiter.consume(project.id, clientIp(req, deps.trust) ?? 'unknown')))
          res.setHeader(h, v);
      }
      // `ref` reaches the join only once the join body knows it (the lifecycle layer adds it).
      const schema = joinSchemaFor(project);
      if (!('ref' in schema.shape)) delete form.body.ref;
      const body = validateJoin(project, form.body); // every mistake at once, the custom fields' too
      const { data } = await completeJoin(deps, req, project, '', body);
      sendHosted(res, project, { joined: data });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.headers) for (const [h, v] of Object.entries(err.headers)) if (h !== 'Connection') res.setHeader(h, v);
      // Only the bot check failed: no field is highlighted, so the banner does not say there is one.
      const botOnly = err.code === 'validation_failed' && !!err.issues?.length && err.issues.every((i) => i.path === 'altcha');
      const error = botOnly ? 'The bot check did not pass: please try again.' : messageFor(err.code);
      sendHosted(res, project, { ...view, status: err.status, error, issues: err.issues });
    }
  });

  app.get('/w/:slug/challenge', async (req, res) => {
    const project = await pageProject(req);
    await limit(project.id, clientIp(req, deps.trust));
    send(res, 200, 'Proof-of-work challenge', await challengeFor(store, project));
  });
}
