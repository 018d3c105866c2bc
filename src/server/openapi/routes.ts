// Every HTTP route of the server, for the OpenAPI document (GET /openapi.json) and its page (GET /docs).
//
// ADDING A ROUTE: when you add `app.<method>(path, …)` anywhere, add one entry to ROUTES below (a page for
// people goes in PAGES, built with `page`). That is the only step: the document, the /docs page and the
// tests pick it up. test/server/openapi.test.ts fails while a route of the app is missing here (or an
// entry here names a route the app lacks), and validates the document with a real OpenAPI validator.
// Most entries are one call of a builder for their shape (`onProject`, `listOnProject`, `route`,
// `preflight`); a route of its own shape is written out as an ApiRoute object:
//
//   onProject('post', '/api/project/:projectId/apikey',        // method and path exactly as given to Polka
//     'createKey', 'API keys', 'Create an API key',             // operationId (verb-first), tag, summary
//     createdApiKeySchema,                                      // `data` of the success envelope
//     { body: createKeyBody, status: 201 }),                    // the zod schema the route reads; 200 if omitted
//
// `onProject` is a session route that answers 404 `not_found` for another user's project; pass `errors` for
// the codes it answers besides those its auth implies.
//
// Request bodies and query parameters are the zod schemas the routes validate with (src/contract/schemas.ts);
// responses are src/contract/responses.ts. Give a new schema `.meta({ id: 'Name' })` to make it a named
// component. Query parameters whose schema transforms (page, limit, …) are described in QUERY_PARAMS in
// document.ts.
import { z } from 'zod';
import {
  createKeyBody,
  createProjectBody,
  entryListQuery,
  exportQuery,
  joinBody,
  loginBody,
  pageQuery,
  projectSettingsBody,
  signupBody,
  updateEntryBody,
  updateKeyBody,
  updateProjectBody,
} from '../../contract/schemas.js';
import {
  apiKeySchema,
  authStatusSchema,
  createdApiKeySchema,
  deleted,
  entrySchema,
  joinResultSchema,
  pageSchema,
  projectSchema,
  projectSettingsSchema,
  readinessSchema,
  statsSchema,
  userSchema,
} from '../../contract/responses.js';
import {
  agree,
  type Same,
  challengeSchema,
  deliverySchema,
  emailLogItemSchema,
  importResultSchema,
  inviteCheckSchema,
  invitePreviewSchema,
  inviteResultSchema,
  leaderboardEntrySchema,
  leftSchema,
  publicFormSchema,
  publicLeaderSchema,
  publicStatusSchema,
  redeemResultSchema,
  renderedEmailSchema,
  templatesSchema,
  webhookCreatedSchema,
  webhookRotatedSchema,
  webhookSchema,
} from '../../contract/responses.js';
import {
  createWebhookBody,
  previewTemplateBody,
  putTemplatesBody,
  rotateWebhookSecretBody,
  updateWebhookBody,
} from '../../contract/events.js';
import { inviteBody, redeemBody, tokenBody } from '../../contract/lifecycle.js';
import type { ErrorCode } from '../../contract/types.js';
import type { AltchaChallenge } from '../../core/captcha.js';
import type { ImportResult } from '../../core/import/run.js';
import { IMPORT_TYPES, importQuery } from '../routes/import.js';
import { tokenQuery } from '../routes/subscriber.js';
import { PAGES } from './pages.js';

// Response schemas of types the contract cannot import (they live in the server's core): checked here.
agree<Same<z.output<typeof importResultSchema>, ImportResult>>();
agree<Same<z.output<typeof challengeSchema>, AltchaChallenge>>();

export type Method = 'get' | 'post' | 'put' | 'delete' | 'options' | 'head' | 'patch';

export interface ApiRoute {
  method: Method;
  /** The Polka path (`:param` segments). */
  path: string;
  /** operationId: verb-first and unique, the method name generated clients give it (like the route files' handlers). */
  id: string;
  /** Groups routes on the page and in generated clients. */
  tag: string;
  summary: string;
  description?: string;
  /**
   * `session`: the session cookie (401 without); `apiKey`: a project's key as a Bearer token (either kind);
   * `secretKey`: a project's secret key (`wl_sk_…`) as a Bearer token; `none`.
   */
  auth: 'session' | 'apiKey' | 'secretKey' | 'none';
  /** The JSON request body schema. */
  body?: z.ZodType;
  /** The JSON body may be left out (every field of `body` has a default). */
  bodyOptional?: boolean;
  /** A request body that is not JSON (e.g. an upload): media type → JSON Schema. */
  rawBody?: { content: Record<string, Record<string, unknown>>; description: string };
  /** The route also takes a plain HTML form post (application/x-www-form-urlencoded), answered with a 303. */
  formPost?: { description: string };
  /** The query schema (an object whose keys are the parameters). */
  query?: z.ZodObject;
  /** Per-route description of query parameters (overrides QUERY_PARAMS in document.ts for this route). */
  queryText?: Record<string, { schema: Record<string, unknown>; description: string; required?: boolean }>;
  ok: {
    status: number;
    /** `data` of the success envelope; omitted: any JSON (its shape not described here yet). */
    data?: z.ZodType;
    /** A response that is not the envelope: media type → schema (e.g. an export stream). */
    content?: Record<string, z.ZodType | Record<string, unknown>>;
    /** No body at all (e.g. 204). */
    empty?: boolean;
    description?: string;
    /** Response headers of the success answer: name → description. */
    headers?: Record<string, string>;
  };
  /**
   * A page for people (HTML, a script): no implied envelope error codes (`errors` still lists any it
   * answers as the envelope); `errors` here describes the pages it answers its errors with, if any.
   */
  page?: { errors?: string };
  /**
   * Error codes this route answers beyond the implied ones (document.ts adds: `auth` → unauthorized, a body →
   * invalid_json/validation_failed/payload_too_large/unsupported_media_type, /api → forbidden, internal and
   * service_unavailable).
   */
  errors?: ErrorCode[];
}

const PROJECT = ['not_found'] as ErrorCode[];
/** What a key-authenticated public route answers beyond `unauthorized`. */
const PUBLIC_KEY = ['not_found', 'forbidden', 'rate_limited'] as ErrorCode[];
/** The invite routes: server-to-server only. */
const SECRET_KEY_ONLY = 'Server-to-server: a publishable key, or a secret key sent with an Origin header, answers 403 `forbidden`.';

/** The parts of an entry beyond method, path, id, tag and summary; `status` is the success status (default 200). */
type More = Partial<Pick<ApiRoute, 'auth' | 'body' | 'bodyOptional' | 'query' | 'description' | 'errors'>> & {
  status?: number;
  /** Response headers of the success answer: name → description. */
  headers?: Record<string, string>;
};

// One builder per shape of entry, so each route below reads as one line of a table.

/** A route whose success answer is the envelope with `data`. */
function route(method: Method, path: string, id: string, tag: string, summary: string, data: z.ZodType, more: More = {}): ApiRoute {
  const { status = 200, auth = 'none', headers, ...rest } = more;
  return { method, path, id, tag, summary, auth, ok: { status, data, headers }, ...rest };
}

/** A session route on one of the user's projects (404 `not_found` for one that is not theirs). */
function onProject(method: Method, path: string, id: string, tag: string, summary: string, data: z.ZodType, more: More = {}) {
  return route(method, path, id, tag, summary, data, { auth: 'session', errors: PROJECT, ...more });
}

/** A paginated list on a project: `?page&limit` (or the given query), a Page of `item`. */
function listOnProject(path: string, id: string, tag: string, summary: string, item: z.ZodType, query: z.ZodObject = pageQuery) {
  return onProject('get', path, id, tag, summary, pageSchema(item), { query, errors: ['validation_failed', ...PROJECT] });
}

/** What a CORS preflight answers with (every public route allows any origin). */
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': '`*`: any origin may call the route',
  'Access-Control-Allow-Methods': 'The methods the route takes',
  'Access-Control-Allow-Headers': 'The request headers a browser may send (Authorization, Content-Type where the route takes a body)',
  'Access-Control-Max-Age': 'How long (seconds) a browser may cache this answer',
};

/** A CORS preflight: 204, no body. */
function preflight(path: string, id: string, tag: string, summary = 'CORS preflight', description?: string): ApiRoute {
  return {
    method: 'options',
    path,
    id,
    tag,
    summary,
    auth: 'none',
    ok: { status: 204, empty: true, description, headers: PREFLIGHT_HEADERS },
  };
}

/** A log-out clears the session cookie. */
const LOGGED_OUT = { 'Set-Cookie': 'Clears the session cookie (`waitlist_session=; Max-Age=0; …`)' };
/** The session cookie a sign-up or log-in sets. */
const SETS_SESSION = {
  'Set-Cookie': '`waitlist_session=<token>; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax` (+ `Secure` over HTTPS)',
};

export const ROUTES: ApiRoute[] = [
  // ---- service ----
  route('get', '/healthz', 'getHealth', 'Service', 'Health check', z.object({ status: z.literal('ok') })),
  route(
    'get',
    '/readyz',
    'getReadiness',
    'Service',
    'Readiness: may this instance take traffic now (the database answers, not shutting down)',
    readinessSchema,
    {
      errors: ['service_unavailable'],
    },
  ),
  {
    method: 'get',
    path: '/openapi.json',
    id: 'getOpenApiDocument',
    tag: 'Service',
    summary: 'This OpenAPI 3.1 document',
    auth: 'none',
    ok: { status: 200, content: { 'application/json': { type: 'object', description: 'An OpenAPI 3.1 document' } } },
    errors: ['rate_limited'],
  },

  // ---- join (public, API key) ----
  preflight(
    '/v1/waitlist/:slug/join',
    'preflightJoin',
    'Join',
    'CORS preflight for the join route',
    'Preflight answered (Access-Control-* headers)',
  ),
  {
    method: 'post',
    path: '/v1/waitlist/:slug/join',
    id: 'joinWaitlist',
    tag: 'Join',
    summary: 'Join a waitlist',
    description:
      'Called from subscribers’ browsers with the project’s publishable key. Order of checks: key → slug → the ' +
      'key’s project → allowed origins → rate limit → body → duplicate email. A 201 is sent only after the entry ' +
      'is durably committed.',
    auth: 'apiKey',
    body: joinBody,
    ok: { status: 201, data: joinResultSchema },
    formPost: {
      description:
        'A plain HTML <form> post: the join body’s fields as form fields (custom fields as `fields.<key>`, the key in a ' +
        '`key` field or the Authorization header); answered with 303 to the redirectUrl or the hosted page, success or not.',
    },
    errors: ['not_found', 'forbidden', 'email_taken', 'rate_limited'],
  },

  // ---- auth ----
  route(
    'get',
    '/auth/status',
    'authStatus',
    'Auth',
    'Whether sign-up is open and whether the server has any account (public)',
    authStatusSchema,
    {
      errors: ['rate_limited'],
    },
  ),
  route('post', '/api/auth/signup', 'signup', 'Auth', 'Create an account (sets the session cookie)', userSchema, {
    description: 'Open while the server has no user, or with --open-signup.',
    body: signupBody,
    status: 201,
    headers: SETS_SESSION,
    errors: ['signup_closed', 'email_taken', 'rate_limited'],
  }),
  route('post', '/api/auth/login', 'login', 'Auth', 'Log in (sets the session cookie)', userSchema, {
    body: loginBody,
    headers: SETS_SESSION,
    errors: ['unauthorized', 'rate_limited'],
  }),
  route('post', '/api/auth/logout', 'logout', 'Auth', 'Log out: revoke this session and clear the cookie', z.null(), {
    auth: 'session',
    headers: LOGGED_OUT,
  }),
  route('post', '/api/auth/logout-all', 'logoutAll', 'Auth', 'Log out of every session of this user', z.null(), {
    auth: 'session',
    headers: LOGGED_OUT,
  }),
  route('get', '/api/auth/me', 'me', 'Auth', 'The signed-in user', userSchema, { auth: 'session' }),

  // ---- projects ----
  route('get', '/api/project', 'listProjects', 'Projects', 'List your projects (newest first)', pageSchema(projectSchema), {
    auth: 'session',
    query: pageQuery,
    errors: ['validation_failed'],
  }),
  route('post', '/api/project', 'createProject', 'Projects', 'Create a project', projectSchema, {
    description: 'The slug is derived from the name when omitted; slugs are unique on the server, soft-deleted projects included.',
    auth: 'session',
    body: createProjectBody,
    status: 201,
    errors: ['slug_taken'],
  }),
  onProject('get', '/api/project/:projectId', 'getProject', 'Projects', 'Get a project (by id or slug)', projectSchema),
  onProject('put', '/api/project/:projectId', 'updateProject', 'Projects', 'Rename a project (the slug is immutable)', projectSchema, {
    body: updateProjectBody,
  }),
  onProject(
    'delete',
    '/api/project/:projectId',
    'deleteProject',
    'Projects',
    'Soft-delete a project (its keys stop working; `waitlist admin project restore` brings it back)',
    deleted(projectSchema),
  ),
  onProject(
    'get',
    '/api/project/:projectId/settings',
    'getSettings',
    'Projects',
    'Get the project’s settings (each with its default)',
    projectSettingsSchema,
  ),
  onProject(
    'put',
    '/api/project/:projectId/settings',
    'updateSettings',
    'Projects',
    'Change the project’s settings (only the fields given)',
    projectSettingsSchema,
    {
      body: projectSettingsBody,
      errors: [...PROJECT, 'smtp_not_configured'],
    },
  ),

  // ---- api keys ----
  listOnProject('/api/project/:projectId/apikey', 'listKeys', 'API keys', 'List the project’s live keys', apiKeySchema),
  onProject(
    'post',
    '/api/project/:projectId/apikey',
    'createKey',
    'API keys',
    'Create a key (the full key is in this response only)',
    createdApiKeySchema,
    {
      body: createKeyBody,
      status: 201,
    },
  ),
  onProject('get', '/api/project/:projectId/apikey/:keyId', 'getKey', 'API keys', 'Get a key', apiKeySchema),
  onProject('put', '/api/project/:projectId/apikey/:keyId', 'updateKey', 'API keys', 'Rename a key', apiKeySchema, { body: updateKeyBody }),
  onProject(
    'delete',
    '/api/project/:projectId/apikey/:keyId',
    'deleteKey',
    'API keys',
    'Revoke a key (the very next join with it answers 401)',
    deleted(apiKeySchema),
  ),

  // ---- entries and stats ----
  listOnProject(
    '/api/project/:projectId/waitlist',
    'listEntries',
    'Entries',
    'List entries (newest first); `search` matches a case-insensitive substring of email or name',
    entrySchema,
    entryListQuery,
  ),
  {
    method: 'get',
    path: '/api/project/:projectId/waitlist/export',
    id: 'exportEntries',
    tag: 'Entries',
    summary: 'Export every live entry as a stream (JSON array, NDJSON or CSV)',
    auth: 'session',
    query: exportQuery,
    ok: {
      status: 200,
      description: 'The entries, streamed; memory stays flat however large the list',
      content: {
        'application/json': { type: 'array', items: { $ref: '#/components/schemas/Entry' } },
        'application/x-ndjson': { type: 'string', description: 'One Entry JSON object per line' },
        'text/csv': { type: 'string', description: 'A header row, then one row per entry' },
      },
    },
    errors: ['validation_failed', ...PROJECT],
  },
  onProject('get', '/api/project/:projectId/waitlist/:entryId', 'getEntry', 'Entries', 'Get an entry', entrySchema),
  onProject(
    'put',
    '/api/project/:projectId/waitlist/:entryId',
    'updateEntry',
    'Entries',
    'Change an entry’s name and/or metadata',
    entrySchema,
    {
      body: updateEntryBody,
    },
  ),
  onProject(
    'delete',
    '/api/project/:projectId/waitlist/:entryId',
    'deleteEntry',
    'Entries',
    'Soft-delete an entry (the same email may join again)',
    deleted(entrySchema),
  ),
  onProject('get', '/api/project/:projectId/stats', 'getStats', 'Entries', 'Sign-up statistics (live entries only)', statsSchema),

  // ---- lifecycle and events (docs/lifecycle.md and docs/events.md) ----
  preflight('/v1/waitlist/:slug/status', 'preflightStatus', 'Subscribers'),
  preflight('/v1/waitlist/:slug/confirm', 'preflightConfirm', 'Subscribers'),
  preflight('/v1/waitlist/:slug/leave', 'preflightLeave', 'Subscribers'),
  preflight('/v1/waitlist/:slug/leaderboard', 'preflightLeaderboard', 'Subscribers'),
  route(
    'get',
    '/v1/waitlist/:slug/status',
    'getStatus',
    'Subscribers',
    'A subscriber’s status and position (`?token=` from the join)',
    publicStatusSchema,
    {
      query: tokenQuery,
      errors: ['validation_failed', 'not_found', 'rate_limited'],
    },
  ),
  route('post', '/v1/waitlist/:slug/confirm', 'confirm', 'Subscribers', 'Confirm a pending email (`{token}`)', publicStatusSchema, {
    body: tokenBody,
    errors: ['not_found', 'rate_limited'],
  }),
  route('post', '/v1/waitlist/:slug/leave', 'leave', 'Subscribers', 'Leave the waitlist (`{token}`): the entry is erased', leftSchema, {
    body: tokenBody,
    errors: ['not_found', 'rate_limited'],
  }),
  route(
    'get',
    '/v1/waitlist/:slug/leaderboard',
    'publicLeaderboard',
    'Subscribers',
    'Top referrers, masked (404 while publicLeaderboard is off)',
    z.array(publicLeaderSchema).max(10),
    { auth: 'apiKey', errors: PUBLIC_KEY },
  ),
  route(
    'post',
    '/v1/waitlist/:slug/invites/redeem',
    'redeemInvite',
    'Subscribers',
    'Redeem an invite code (secret key)',
    redeemResultSchema,
    {
      auth: 'secretKey',
      description: SECRET_KEY_ONLY,
      body: redeemBody,
      errors: ['not_found', 'forbidden', 'invite_used', 'invite_expired', 'rate_limited'],
    },
  ),
  route('get', '/v1/waitlist/:slug/invites/:code', 'checkInvite', 'Subscribers', 'Check an invite code (secret key)', inviteCheckSchema, {
    auth: 'secretKey',
    description: SECRET_KEY_ONLY,
    errors: ['not_found', 'forbidden', 'invite_used', 'invite_expired', 'rate_limited'],
  }),
  onProject(
    'post',
    '/api/project/:projectId/invites',
    'inviteEntries',
    'Launch',
    'Invite the next N waiting entries or the given ones (`dryRun` previews)',
    z.union([inviteResultSchema, invitePreviewSchema]),
    {
      description:
        'Give either `count` (the next N waiting entries by position) or `entryIds`. With `dryRun` the answer lists who would be invited (InvitePreview) and nothing is written. Answers 409 `smtp_not_configured` when the server has no SMTP to send the invites.',
      body: inviteBody,
      errors: [...PROJECT, 'smtp_not_configured'],
    },
  ),
  onProject(
    'get',
    '/api/project/:projectId/leaderboard',
    'getLeaderboard',
    'Launch',
    'Top referrers with their full entries',
    z.array(leaderboardEntrySchema).max(100),
  ),
  onProject('get', '/api/project/:projectId/templates', 'getTemplates', 'Email', 'The project’s email templates', templatesSchema),
  onProject(
    'put',
    '/api/project/:projectId/templates',
    'updateTemplates',
    'Email',
    'Change email templates (only those given; null = default)',
    templatesSchema,
    {
      body: putTemplatesBody,
    },
  ),
  onProject(
    'post',
    '/api/project/:projectId/templates/preview',
    'previewTemplate',
    'Email',
    'Render a template with sample variables (saves nothing)',
    renderedEmailSchema,
    {
      body: previewTemplateBody,
    },
  ),
  listOnProject('/api/project/:projectId/emails', 'listEmails', 'Email', 'The email log', emailLogItemSchema),
  listOnProject('/api/project/:projectId/webhooks', 'listWebhooks', 'Webhooks', 'List webhooks', webhookSchema),
  onProject(
    'post',
    '/api/project/:projectId/webhooks',
    'createWebhook',
    'Webhooks',
    'Create a webhook (its whsec_ secret is in this response only)',
    webhookCreatedSchema,
    {
      body: createWebhookBody,
      status: 201,
    },
  ),
  onProject('get', '/api/project/:projectId/webhooks/:webhookId', 'getWebhook', 'Webhooks', 'Get a webhook', webhookSchema),
  onProject(
    'patch',
    '/api/project/:projectId/webhooks/:webhookId',
    'updateWebhook',
    'Webhooks',
    'Change a webhook (PUT does the same)',
    webhookSchema,
    {
      body: updateWebhookBody,
    },
  ),
  onProject(
    'put',
    '/api/project/:projectId/webhooks/:webhookId',
    'replaceWebhook',
    'Webhooks',
    'Change a webhook (as PATCH)',
    webhookSchema,
    { body: updateWebhookBody },
  ),
  onProject(
    'delete',
    '/api/project/:projectId/webhooks/:webhookId',
    'deleteWebhook',
    'Webhooks',
    'Delete a webhook',
    deleted(webhookSchema),
  ),
  listOnProject(
    '/api/project/:projectId/webhooks/:webhookId/deliveries',
    'listDeliveries',
    'Webhooks',
    'The delivery log of a webhook',
    deliverySchema,
  ),
  onProject(
    'post',
    '/api/project/:projectId/webhooks/:webhookId/deliveries/:deliveryId/retry',
    'retryDelivery',
    'Webhooks',
    'Retry a delivery now',
    deliverySchema,
  ),
  onProject('post', '/api/project/:projectId/webhooks/:webhookId/test', 'testWebhook', 'Webhooks', 'Send a test ping', deliverySchema),
  onProject(
    'post',
    '/api/project/:projectId/webhooks/:webhookId/rotate-secret',
    'rotateWebhookSecret',
    'Webhooks',
    'Give the webhook a new secret (shown once); the old one signs beside it for keepPreviousFor seconds (default 86400)',
    webhookRotatedSchema,
    { body: rotateWebhookSecretBody, bodyOptional: true },
  ),

  // ---- sign-up surface (docs/signup.md) ----
  preflight('/v1/waitlist/:slug/challenge', 'preflightChallenge', 'Sign-up surface'),
  preflight('/v1/waitlist/:slug/form', 'preflightForm', 'Sign-up surface'),
  route(
    'get',
    '/v1/waitlist/:slug/challenge',
    'getChallenge',
    'Sign-up surface',
    'A proof-of-work challenge for the join (when the project asks for one)',
    challengeSchema,
    {
      auth: 'apiKey',
      errors: PUBLIC_KEY,
    },
  ),
  route(
    'get',
    '/v1/waitlist/:slug/form',
    'getForm',
    'Sign-up surface',
    'The join form’s description: custom fields and settings for a widget',
    publicFormSchema,
    {
      auth: 'apiKey',
      errors: PUBLIC_KEY,
    },
  ),
  {
    method: 'post',
    path: '/api/project/:projectId/import',
    id: 'importEntries',
    tag: 'Entries',
    summary: 'Import entries from a CSV or NDJSON upload',
    auth: 'session',
    query: importQuery,
    queryText: {
      format: {
        schema: { type: 'string', enum: ['csv', 'ndjson'] },
        description: 'The file’s format; default: from the Content-Type (json → ndjson, else csv)',
      },
      dryRun: { schema: { type: 'boolean', default: false }, description: 'Check the file and count, write nothing' },
      dateFormat: {
        schema: { type: 'string', enum: ['auto', 'dmy', 'mdy'], default: 'auto' },
        description: 'How to read slash dates (`01/02/2024`)',
      },
    },
    rawBody: {
      description: 'The file itself as the body (not multipart): CSV with a header row, or NDJSON (one object per line)',
      // Every type the route takes (IMPORT_TYPES); the format comes from ?format, else from this type.
      content: Object.fromEntries(IMPORT_TYPES.map((t) => [t, { type: 'string' }])),
    },
    ok: { status: 200, data: importResultSchema },
    errors: ['validation_failed', ...PROJECT, 'payload_too_large', 'unsupported_media_type', 'rate_limited'],
  },

  // ---- pages for people (HTML), at the end of the document ----
  ...PAGES,
];
