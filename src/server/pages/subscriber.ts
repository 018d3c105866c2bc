// The subscriber's pages (no login: the token in the link is the credential). A GET never changes
// state (mail scanners prefetch links): confirm and leave ask for one click, a form POST to the same
// path. POST /w/:slug/leave?token=… also serves RFC 8058 one-click unsubscribe (List-Unsubscribe-Post).
//   GET  /w/:slug/status?token=…    statusPage
//   GET  /w/:slug/confirm?token=…   confirmPage      POST /w/:slug/confirm   confirmNow
//   GET  /w/:slug/leave?token=…     leavePage        POST /w/:slug/leave     leaveNow
import type { ServerResponse } from 'node:http';
import type { Polka } from 'polka';
import { AppError } from '../../core/errors.js';
import * as lc from '../../core/lifecycle.js';
import { projectForJoin } from '../../core/projects.js';
import type { PublicEntry } from '../../contract/lifecycle.js';
import type { ProjectRow } from '../../db/store.js';
import type { Deps, Req } from '../context.js';
import { readBody } from '../http.js';
import { baseUrl, limitSelf, selfLimiter } from '../lifecycle-http.js';
import { html, sendPage, type Raw } from './html.js';

const first = (v: unknown): string => (Array.isArray(v) ? String(v[0] ?? '') : typeof v === 'string' ? v : '');

function message(res: ServerResponse, status: number, title: string, text: string, project?: ProjectRow) {
  sendPage(res, {
    status,
    title,
    body: html`<h1>${title}</h1>${project ? html`<p class="muted">${project.name}</p>` : ''}<p>${text}</p>`,
  });
}

function statusCard(project: ProjectRow, v: PublicEntry, token: string): Raw {
  const place =
    v.status === 'waiting'
      ? html`<p>Your place</p><p class="big">#${v.position}</p><p class="muted">of ${v.total} waiting</p>`
      : v.status === 'pending'
        ? html`<p>Please confirm your email: we sent you a link.</p>`
        : v.status === 'invited'
          ? html`<p>You are invited! Check your inbox for your invite.</p>`
          : html`<p>You are in: your invite was accepted.</p>`;
  return html`<h1>${project.name}</h1>
<div class="card">${place}</div>
<p>Signed up as <strong>${v.email}</strong>.</p>
${
  v.status === 'pending'
    ? '' // no place yet: the link to share comes once the email is confirmed
    : html`<p>Invite friends with your link${v.referrals ? html` (${v.referrals} joined so far)` : ''}:</p>
<p class="code">${v.referralUrl}</p>`
}
<p><a href="/w/${project.slug}/leave?token=${encodeURIComponent(token)}">Leave the waitlist and erase my data</a></p>`;
}

/** Reads `token` from a form post body (or the query string, for one-click unsubscribe). */
async function formToken(req: Req): Promise<string> {
  const raw = (await readBody(req)).toString('utf8');
  return new URLSearchParams(raw).get('token') ?? first(req.query?.token);
}

export function subscriberPages(app: Polka<Req>, deps: Deps) {
  const { store } = deps;
  const limiter = selfLimiter(deps);

  /** The live project and the request's rate limit; a page (not JSON) for what goes wrong. */
  const open = async (req: Req, res: ServerResponse): Promise<ProjectRow | undefined> => {
    const project = await projectForJoin(store, req.params.slug!);
    if (!project) {
      message(res, 404, 'Waitlist not found', 'This waitlist does not exist (any more).');
      return undefined;
    }
    try {
      await limitSelf(limiter, deps, req, res, project.id);
    } catch (e) {
      if (e instanceof AppError && e.code === 'rate_limited') {
        for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v); // Retry-After, RateLimit
        message(res, 429, 'Slow down', 'Too many requests from your address; try again in a minute.', project);
        return undefined;
      }
      throw e;
    }
    return project;
  };
  const badLink = (res: ServerResponse, project: ProjectRow) =>
    message(res, 404, 'Link not valid', 'This link is unknown, was already used, or its entry was removed.', project);
  const notFound = (e: unknown) => e instanceof AppError && e.code === 'not_found';

  app.get('/w/:slug/status', async (req, res) => {
    const project = await open(req, res);
    if (!project) return;
    const token = first(req.query?.token);
    try {
      const row = await lc.entryByStatusToken(store, project, token);
      const v = await lc.publicView(store, project, row, baseUrl(deps, req));
      sendPage(res, { title: `${project.name}: your place`, body: statusCard(project, v, token) });
    } catch (e) {
      if (notFound(e)) return badLink(res, project);
      throw e;
    }
  });

  /**
   * GET of a token link only asks (a link scanner must not act): a form posts the token back to the same
   * path. The token is looked up first (reading only): a bad or used one is the 404 page, not a button.
   */
  const askFirst = (
    action: 'confirm' | 'leave',
    title: string,
    question: string,
    button: string,
    check: (project: ProjectRow, token: string) => Promise<unknown>,
  ) =>
    app.get(`/w/:slug/${action}`, async (req, res) => {
      const project = await open(req, res);
      if (!project) return;
      const token = first(req.query?.token);
      try {
        await check(project, token);
      } catch (e) {
        if (notFound(e)) return badLink(res, project);
        throw e;
      }
      sendPage(res, {
        title: `${project.name}: ${title}`,
        body: html`<h1>${project.name}</h1><p>${question}</p>
<form method="post" action="/w/${project.slug}/${action}"><input type="hidden" name="token" value="${token}">
<button type="submit">${button}</button></form>`,
      });
    });

  askFirst(
    'confirm',
    'confirm your email',
    'One click to confirm your email and take your place on the waitlist.',
    'Confirm my email',
    (project, token) => lc.entryByConfirmToken(store, project, token),
  );

  app.post('/w/:slug/confirm', async (req, res) => {
    const project = await open(req, res);
    if (!project) return;
    const token = await formToken(req);
    try {
      const row = await lc.confirmEntry(store, project, token, baseUrl(deps, req));
      const v = await lc.publicView(store, project, row, baseUrl(deps, req));
      sendPage(res, {
        title: `${project.name}: confirmed`,
        body: html`<h1>${project.name}</h1><p><strong>Thanks, your email is confirmed.</strong></p>${v.status === 'waiting' ? html`<div class="card"><p>Your place</p><p class="big">#${v.position}</p><p class="muted">of ${v.total} waiting</p></div>` : ''}
<p>Invite friends with your link:</p><p class="code">${v.referralUrl}</p>`,
      });
    } catch (e) {
      if (notFound(e)) return badLink(res, project);
      throw e;
    }
  });

  askFirst(
    'leave',
    'leave the waitlist',
    'Leave the waitlist? Your email, name and everything else we stored about you will be erased. This cannot be undone.',
    'Leave and erase my data',
    (project, token) => lc.entryByStatusToken(store, project, token),
  );

  app.post('/w/:slug/leave', async (req, res) => {
    const project = await open(req, res);
    if (!project) return;
    const token = await formToken(req);
    try {
      await lc.leave(store, project, token);
      message(res, 200, 'You have left the waitlist', 'Your data has been erased. You can join again at any time.', project);
    } catch (e) {
      if (notFound(e)) return badLink(res, project);
      throw e;
    }
  });
}
