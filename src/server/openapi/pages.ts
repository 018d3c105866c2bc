// The routes that answer people rather than programs, for the OpenAPI document (tag `Pages`): the
// dashboard, the document's own page, the widget script, the hosted sign-up page and the subscriber
// pages. Their answers are HTML (or a script) and so are most of their errors, described in one line.
import { z } from 'zod';
import { challengeSchema } from '../../contract/responses.js';
import { tokenQuery } from '../routes/subscriber.js';
import type { ApiRoute, Method } from './routes.js';

const HTML = (description: string) => ({ 'text/html': { type: 'string', description } });
const TOKEN_PAGE_ERRORS = 'An HTML page: 404 for an unknown, used or expired link (or project), 429 when rate limited';

/** A page for people: no auth, an HTML answer, its errors answered as pages. */
function page(method: Method, path: string, id: string, summary: string, description: string, errors?: string): ApiRoute {
  return { method, path, id, tag: 'Pages', summary, auth: 'none', ok: { status: 200, content: HTML(description) }, page: { errors } };
}

const DASHBOARD = 'The web dashboard (a single-page app; same origin and session cookie as /api)';
const WIDGET = 'The embeddable sign-up widget (docs/signup.md): `<script src=".../widget.js" data-slug data-key async>`';
const HOSTED_ERRORS = 'The error envelope 404 when the project is unknown, deleted or its hosted page is off; 429 when rate limited';

/** The pages for people: the dashboard, this document's page, the widget, the hosted and subscriber pages. */
export const PAGES: ApiRoute[] = [
  page('get', '/', 'showDashboard', 'Dashboard', DASHBOARD),
  page('head', '/', 'headDashboard', 'Dashboard (headers only)', DASHBOARD),
  {
    // Rate limited like /openapi.json (DOCS_RATE_LIMIT per client address): 429 in the error envelope.
    ...page('get', '/docs', 'showApiDocs', 'This document, rendered as a page (offline: nothing from elsewhere)', 'The API reference page'),
    errors: ['rate_limited'],
  },
  {
    ...page('get', '/widget.js', 'getWidget', 'The sign-up widget script', WIDGET),
    ok: { status: 200, content: { 'text/javascript': { type: 'string', description: WIDGET } } },
  },
  {
    ...page('head', '/widget.js', 'headWidget', 'The sign-up widget script (headers only)', WIDGET),
    ok: { status: 200, content: { 'text/javascript': { type: 'string', description: WIDGET } } },
  },
  {
    ...page(
      'get',
      '/w/:slug',
      'showHostedPage',
      'The hosted sign-up page (`?ref=CODE` is carried into the join)',
      'The sign-up form, or after a join the position and referral link',
      HOSTED_ERRORS,
    ),
    query: z.object({ ref: z.string().optional(), status: z.string().optional(), error: z.string().optional() }),
    queryText: {
      ref: { schema: { type: 'string' }, description: 'A referral code, carried into the join (an unknown one is ignored)' },
      status: {
        schema: { type: 'string', enum: ['joined'] },
        description: 'Set by a form post’s redirect: the page says the join went through',
      },
      error: {
        schema: { type: 'string', pattern: '^[a-z_]{1,40}$' },
        description: 'Set by a form post’s redirect: an error code (`email_taken`, …), shown in words',
      },
    },
  },
  {
    ...page(
      'post',
      '/w/:slug',
      'joinFromHostedPage',
      'The hosted page’s form post: joins on behalf of the project (no key), with the join route’s checks',
      'The page with the result (position, referral link) or the form with its errors (status 400/409)',
      `${HOSTED_ERRORS}; 400 and 409 as the page with the form's errors`,
    ),
    rawBody: {
      content: { 'application/x-www-form-urlencoded': { type: 'object', description: 'email, name, ref, fields.<key>, altcha' } },
      description: 'The hosted page’s form',
    },
  },
  {
    method: 'get',
    path: '/w/:slug/challenge',
    id: 'getPageChallenge',
    tag: 'Pages',
    summary: 'The hosted page’s proof-of-work challenge (no key)',
    auth: 'none',
    ok: { status: 200, data: challengeSchema },
    errors: ['not_found', 'rate_limited'],
  },
  {
    ...page(
      'get',
      '/w/:slug/status',
      'showStatusPage',
      'The subscriber’s status page',
      'Status, position and referral link',
      TOKEN_PAGE_ERRORS,
    ),
    query: tokenQuery,
  },
  {
    ...page(
      'get',
      '/w/:slug/confirm',
      'showConfirmPage',
      'The confirm page: one click confirms (a GET never does)',
      'A page with one button',
      TOKEN_PAGE_ERRORS,
    ),
    query: tokenQuery,
  },
  {
    ...page('post', '/w/:slug/confirm', 'confirmFromPage', 'The confirm page’s button', 'The confirmed status', TOKEN_PAGE_ERRORS),
    query: tokenQuery.partial(),
    rawBody: {
      content: { 'application/x-www-form-urlencoded': { type: 'object', description: 'token (or ?token=)' } },
      description: 'The page’s form',
    },
  },
  {
    ...page(
      'get',
      '/w/:slug/leave',
      'showLeavePage',
      'The leave page: one click erases the entry (a GET never does)',
      'A page with one button',
      TOKEN_PAGE_ERRORS,
    ),
    query: tokenQuery,
  },
  {
    ...page(
      'post',
      '/w/:slug/leave',
      'leaveFromPage',
      'The leave page’s button, and RFC 8058 one-click unsubscribe (`List-Unsubscribe=One-Click`)',
      'The entry is erased',
      TOKEN_PAGE_ERRORS,
    ),
    query: tokenQuery.partial(),
    rawBody: {
      content: {
        'application/x-www-form-urlencoded': { type: 'object', description: 'token, or List-Unsubscribe=One-Click with ?token=' },
      },
      description: 'The page’s form, or a mail client’s one-click unsubscribe',
    },
  },
];
