// Every HTTP route of the server, for the OpenAPI document (GET /openapi.json) and its page (GET /docs).
//
// ADDING A ROUTE: when you add `app.<method>(path, …)` anywhere, add one entry to ROUTES below (or, for a
// page that is not API, to NOT_IN_DOCUMENT). That is the only step: the document, the /docs page and the
// tests pick it up. test/server/openapi.test.ts fails while a route of the app is missing here (or an
// entry here names a route the app lacks), and validates the document with a real OpenAPI validator.
//
//   {
//     method: 'post', path: '/api/project/:projectId/apikey',   // exactly as given to Polka
//     id: 'createKey',                                            // operationId, verb-first
//     tag: 'API keys', summary: 'Create an API key', auth: 'session',
//     body: createKeyBody,                                        // the zod schema the route reads
//     ok: { status: 201, data: createdApiKeySchema },             // `data` of the success envelope
//     errors: ['validation_failed', 'not_found'],                 // besides those `auth` implies
//   }
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
  webhookSchema,
} from '../../contract/responses.js';
import { createWebhookBody, previewTemplateBody, putTemplatesBody, updateWebhookBody } from '../../contract/events.js';
import { inviteBody, redeemBody, tokenBody } from '../../contract/lifecycle.js';
import type { ErrorCode } from '../../contract/types.js';
import type { AltchaChallenge } from '../../core/captcha.js';
import type { ImportResult } from '../../core/import/run.js';
import { importQuery } from '../routes/import.js';
import { tokenQuery } from '../routes/subscriber.js';

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
  /** `session`: the session cookie (401 without); `apiKey`: a project's key as a Bearer token; `none`. */
  auth: 'session' | 'apiKey' | 'none';
  /** The JSON request body schema. */
  body?: z.ZodType;
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
  };
  /**
   * Error codes this route answers beyond the implied ones (document.ts adds: `auth` → unauthorized, a body →
   * invalid_json/validation_failed/payload_too_large/unsupported_media_type, /api → forbidden, internal and
   * service_unavailable).
   */
  errors?: ErrorCode[];
}

const PROJECT = ['not_found'] as ErrorCode[];

/** Routes of the app that are pages for people, not API: left out of the document on purpose. */
export const NOT_IN_DOCUMENT: { method: Method; path: string; why: string }[] = [
  { method: 'get', path: '/', why: 'the dashboard (HTML)' },
  { method: 'head', path: '/', why: 'the dashboard (HTML)' },
  { method: 'get', path: '/docs', why: 'this document rendered as HTML' },
  { method: 'get', path: '/w/:slug', why: 'hosted sign-up page (HTML)' },
  { method: 'post', path: '/w/:slug', why: 'hosted sign-up page form post (HTML, 303)' },
  { method: 'get', path: '/w/:slug/challenge', why: 'hosted page proof-of-work challenge' },
  { method: 'get', path: '/widget.js', why: 'the embeddable widget script' },
  { method: 'head', path: '/widget.js', why: 'the embeddable widget script' },
  { method: 'get', path: '/w/:slug/status', why: 'subscriber page (HTML)' },
  { method: 'get', path: '/w/:slug/confirm', why: 'subscriber page (HTML)' },
  { method: 'post', path: '/w/:slug/confirm', why: 'subscriber page form post (HTML)' },
  { method: 'get', path: '/w/:slug/leave', why: 'subscriber page (HTML)' },
  { method: 'post', path: '/w/:slug/leave', why: 'subscriber page form post, RFC 8058 one-click unsubscribe' },
];

export const ROUTES: ApiRoute[] = [
  // ---- service ----
  {
    method: 'get',
    path: '/healthz',
    id: 'getHealth',
    tag: 'Service',
    summary: 'Health check',
    auth: 'none',
    ok: { status: 200, data: z.object({ status: z.literal('ok') }) },
  },
  {
    method: 'get',
    path: '/readyz',
    id: 'getReadiness',
    tag: 'Service',
    summary: 'Readiness: may this instance take traffic now (the database answers, not shutting down)',
    auth: 'none',
    ok: { status: 200, data: readinessSchema },
    errors: ['service_unavailable'],
  },
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
  {
    method: 'options',
    path: '/v1/waitlist/:slug/join',
    id: 'preflightJoin',
    tag: 'Join',
    summary: 'CORS preflight for the join route',
    auth: 'none',
    ok: { status: 204, empty: true, description: 'Preflight answered (Access-Control-* headers)' },
  },
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
  {
    method: 'get',
    path: '/api/auth/status',
    id: 'authStatus',
    tag: 'Auth',
    summary: 'Whether sign-up is open and whether the server has any account (public)',
    auth: 'none',
    ok: { status: 200, data: authStatusSchema },
    errors: ['rate_limited'],
  },
  {
    method: 'post',
    path: '/api/auth/signup',
    id: 'signup',
    tag: 'Auth',
    summary: 'Create an account (sets the session cookie)',
    description: 'Open while the server has no user, or with --open-signup.',
    auth: 'none',
    body: signupBody,
    ok: { status: 201, data: userSchema },
    errors: ['signup_closed', 'email_taken', 'rate_limited'],
  },
  {
    method: 'post',
    path: '/api/auth/login',
    id: 'login',
    tag: 'Auth',
    summary: 'Log in (sets the session cookie)',
    auth: 'none',
    body: loginBody,
    ok: { status: 200, data: userSchema },
    errors: ['unauthorized', 'rate_limited'],
  },
  {
    method: 'post',
    path: '/api/auth/logout',
    id: 'logout',
    tag: 'Auth',
    summary: 'Log out: revoke this session and clear the cookie',
    auth: 'session',
    ok: { status: 200, data: z.null() },
  },
  {
    method: 'post',
    path: '/api/auth/logout-all',
    id: 'logoutAll',
    tag: 'Auth',
    summary: 'Log out of every session of this user',
    auth: 'session',
    ok: { status: 200, data: z.null() },
  },
  {
    method: 'get',
    path: '/api/auth/me',
    id: 'me',
    tag: 'Auth',
    summary: 'The signed-in user',
    auth: 'session',
    ok: { status: 200, data: userSchema },
  },

  // ---- projects ----
  {
    method: 'get',
    path: '/api/project',
    id: 'listProjects',
    tag: 'Projects',
    summary: 'List your projects (newest first)',
    auth: 'session',
    query: pageQuery,
    ok: { status: 200, data: pageSchema(projectSchema) },
    errors: ['validation_failed'],
  },
  {
    method: 'post',
    path: '/api/project',
    id: 'createProject',
    tag: 'Projects',
    summary: 'Create a project',
    description: 'The slug is derived from the name when omitted; slugs are unique on the server, soft-deleted projects included.',
    auth: 'session',
    body: createProjectBody,
    ok: { status: 201, data: projectSchema },
    errors: ['slug_taken'],
  },
  {
    method: 'get',
    path: '/api/project/:projectId',
    id: 'getProject',
    tag: 'Projects',
    summary: 'Get a project (by id or slug)',
    auth: 'session',
    ok: { status: 200, data: projectSchema },
    errors: PROJECT,
  },
  {
    method: 'put',
    path: '/api/project/:projectId',
    id: 'updateProject',
    tag: 'Projects',
    summary: 'Rename a project (the slug is immutable)',
    auth: 'session',
    body: updateProjectBody,
    ok: { status: 200, data: projectSchema },
    errors: PROJECT,
  },
  {
    method: 'delete',
    path: '/api/project/:projectId',
    id: 'deleteProject',
    tag: 'Projects',
    summary: 'Soft-delete a project (its keys stop working; `waitlist admin project restore` brings it back)',
    auth: 'session',
    ok: { status: 200, data: deleted(projectSchema) },
    errors: PROJECT,
  },
  {
    method: 'get',
    path: '/api/project/:projectId/settings',
    id: 'getSettings',
    tag: 'Projects',
    summary: 'Get the project’s settings (each with its default)',
    auth: 'session',
    ok: { status: 200, data: projectSettingsSchema },
    errors: PROJECT,
  },
  {
    method: 'put',
    path: '/api/project/:projectId/settings',
    id: 'updateSettings',
    tag: 'Projects',
    summary: 'Change the project’s settings (only the fields given)',
    auth: 'session',
    body: projectSettingsBody,
    ok: { status: 200, data: projectSettingsSchema },
    errors: [...PROJECT, 'smtp_not_configured'],
  },

  // ---- api keys ----
  {
    method: 'get',
    path: '/api/project/:projectId/apikey',
    id: 'listKeys',
    tag: 'API keys',
    summary: 'List the project’s live keys',
    auth: 'session',
    query: pageQuery,
    ok: { status: 200, data: pageSchema(apiKeySchema) },
    errors: ['validation_failed', ...PROJECT],
  },
  {
    method: 'post',
    path: '/api/project/:projectId/apikey',
    id: 'createKey',
    tag: 'API keys',
    summary: 'Create a key (the full key is in this response only)',
    auth: 'session',
    body: createKeyBody,
    ok: { status: 201, data: createdApiKeySchema },
    errors: PROJECT,
  },
  {
    method: 'get',
    path: '/api/project/:projectId/apikey/:keyId',
    id: 'getKey',
    tag: 'API keys',
    summary: 'Get a key',
    auth: 'session',
    ok: { status: 200, data: apiKeySchema },
    errors: PROJECT,
  },
  {
    method: 'put',
    path: '/api/project/:projectId/apikey/:keyId',
    id: 'updateKey',
    tag: 'API keys',
    summary: 'Rename a key',
    auth: 'session',
    body: updateKeyBody,
    ok: { status: 200, data: apiKeySchema },
    errors: PROJECT,
  },
  {
    method: 'delete',
    path: '/api/project/:projectId/apikey/:keyId',
    id: 'deleteKey',
    tag: 'API keys',
    summary: 'Revoke a key (the very next join with it answers 401)',
    auth: 'session',
    ok: { status: 200, data: deleted(apiKeySchema) },
    errors: PROJECT,
  },

  // ---- entries and stats ----
  {
    method: 'get',
    path: '/api/project/:projectId/waitlist',
    id: 'listEntries',
    tag: 'Entries',
    summary: 'List entries (newest first); `search` matches a case-insensitive substring of email or name',
    auth: 'session',
    query: entryListQuery,
    ok: { status: 200, data: pageSchema(entrySchema) },
    errors: ['validation_failed', ...PROJECT],
  },
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
  {
    method: 'get',
    path: '/api/project/:projectId/waitlist/:entryId',
    id: 'getEntry',
    tag: 'Entries',
    summary: 'Get an entry',
    auth: 'session',
    ok: { status: 200, data: entrySchema },
    errors: PROJECT,
  },
  {
    method: 'put',
    path: '/api/project/:projectId/waitlist/:entryId',
    id: 'updateEntry',
    tag: 'Entries',
    summary: 'Change an entry’s name and/or metadata',
    auth: 'session',
    body: updateEntryBody,
    ok: { status: 200, data: entrySchema },
    errors: PROJECT,
  },
  {
    method: 'delete',
    path: '/api/project/:projectId/waitlist/:entryId',
    id: 'deleteEntry',
    tag: 'Entries',
    summary: 'Soft-delete an entry (the same email may join again)',
    auth: 'session',
    ok: { status: 200, data: deleted(entrySchema) },
    errors: PROJECT,
  },
  {
    method: 'get',
    path: '/api/project/:projectId/stats',
    id: 'getStats',
    tag: 'Entries',
    summary: 'Sign-up statistics (live entries only)',
    auth: 'session',
    ok: { status: 200, data: statsSchema },
    errors: PROJECT,
  },

  // ---- lifecycle and events (docs/lifecycle.md and docs/events.md) ----
  {
    method: 'options',
    path: '/v1/waitlist/:slug/status',
    id: 'preflightStatus',
    tag: 'Subscribers',
    summary: 'CORS preflight',
    auth: 'none',
    ok: { status: 204, empty: true },
  },
  {
    method: 'options',
    path: '/v1/waitlist/:slug/confirm',
    id: 'preflightConfirm',
    tag: 'Subscribers',
    summary: 'CORS preflight',
    auth: 'none',
    ok: { status: 204, empty: true },
  },
  {
    method: 'options',
    path: '/v1/waitlist/:slug/leave',
    id: 'preflightLeave',
    tag: 'Subscribers',
    summary: 'CORS preflight',
    auth: 'none',
    ok: { status: 204, empty: true },
  },
  {
    method: 'options',
    path: '/v1/waitlist/:slug/leaderboard',
    id: 'preflightLeaderboard',
    tag: 'Subscribers',
    summary: 'CORS preflight',
    auth: 'none',
    ok: { status: 204, empty: true },
  },
  {
    method: 'get',
    path: '/v1/waitlist/:slug/status',
    id: 'getStatus',
    tag: 'Subscribers',
    summary: 'A subscriber’s status and position (`?token=` from the join)',
    auth: 'none',
    query: tokenQuery,
    ok: { status: 200, data: publicStatusSchema },
    errors: ['validation_failed', 'not_found', 'rate_limited'],
  },
  {
    method: 'post',
    path: '/v1/waitlist/:slug/confirm',
    id: 'confirm',
    tag: 'Subscribers',
    summary: 'Confirm a pending email (`{token}`)',
    auth: 'none',
    body: tokenBody,
    ok: { status: 200, data: publicStatusSchema },
    errors: ['not_found', 'rate_limited'],
  },
  {
    method: 'post',
    path: '/v1/waitlist/:slug/leave',
    id: 'leave',
    tag: 'Subscribers',
    summary: 'Leave the waitlist (`{token}`): the entry is erased',
    auth: 'none',
    body: tokenBody,
    ok: { status: 200, data: leftSchema },
    errors: ['not_found', 'rate_limited'],
  },
  {
    method: 'get',
    path: '/v1/waitlist/:slug/leaderboard',
    id: 'publicLeaderboard',
    tag: 'Subscribers',
    summary: 'Top referrers, masked (404 while publicLeaderboard is off)',
    auth: 'apiKey',
    ok: { status: 200, data: z.array(publicLeaderSchema).max(10) },
    errors: ['not_found', 'forbidden', 'rate_limited'],
  },
  {
    method: 'post',
    path: '/v1/waitlist/:slug/invites/redeem',
    id: 'redeemInvite',
    tag: 'Subscribers',
    summary: 'Redeem an invite code (secret key)',
    auth: 'apiKey',
    description: 'Server-to-server: a publishable key, or a secret key sent with an Origin header, answers 403 `forbidden`.',
    body: redeemBody,
    ok: { status: 200, data: redeemResultSchema },
    errors: ['not_found', 'forbidden', 'invite_used', 'invite_expired', 'rate_limited'],
  },
  {
    method: 'get',
    path: '/v1/waitlist/:slug/invites/:code',
    id: 'checkInvite',
    tag: 'Subscribers',
    summary: 'Check an invite code (secret key)',
    auth: 'apiKey',
    description: 'Server-to-server: a publishable key, or a secret key sent with an Origin header, answers 403 `forbidden`.',
    ok: { status: 200, data: inviteCheckSchema },
    errors: ['not_found', 'forbidden', 'invite_used', 'invite_expired', 'rate_limited'],
  },
  {
    method: 'post',
    path: '/api/project/:projectId/invites',
    id: 'inviteEntries',
    tag: 'Launch',
    summary: 'Invite the next N waiting entries or the given ones (`dryRun` previews)',
    auth: 'session',
    description:
      'Give either `count` (the next N waiting entries by position) or `entryIds`. With `dryRun` the answer lists who would be invited (InvitePreview) and nothing is written. Answers 409 `smtp_not_configured` when the server has no SMTP to send the invites.',
    body: inviteBody,
    ok: { status: 200, data: z.union([inviteResultSchema, invitePreviewSchema]) },
    errors: [...PROJECT, 'smtp_not_configured'],
  },
  {
    method: 'get',
    path: '/api/project/:projectId/leaderboard',
    id: 'getLeaderboard',
    tag: 'Launch',
    summary: 'Top referrers with their full entries',
    auth: 'session',
    ok: { status: 200, data: z.array(leaderboardEntrySchema).max(100) },
    errors: PROJECT,
  },
  {
    method: 'get',
    path: '/api/project/:projectId/templates',
    id: 'getTemplates',
    tag: 'Email',
    summary: 'The project’s email templates',
    auth: 'session',
    ok: { status: 200, data: templatesSchema },
    errors: PROJECT,
  },
  {
    method: 'put',
    path: '/api/project/:projectId/templates',
    id: 'updateTemplates',
    tag: 'Email',
    summary: 'Change email templates (only those given; null = default)',
    auth: 'session',
    body: putTemplatesBody,
    ok: { status: 200, data: templatesSchema },
    errors: PROJECT,
  },
  {
    method: 'post',
    path: '/api/project/:projectId/templates/preview',
    id: 'previewTemplate',
    tag: 'Email',
    summary: 'Render a template with sample variables (saves nothing)',
    auth: 'session',
    body: previewTemplateBody,
    ok: { status: 200, data: renderedEmailSchema },
    errors: PROJECT,
  },
  {
    method: 'get',
    path: '/api/project/:projectId/emails',
    id: 'listEmails',
    tag: 'Email',
    summary: 'The email log',
    auth: 'session',
    query: pageQuery,
    ok: { status: 200, data: pageSchema(emailLogItemSchema) },
    errors: ['validation_failed', ...PROJECT],
  },
  {
    method: 'get',
    path: '/api/project/:projectId/webhooks',
    id: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List webhooks',
    auth: 'session',
    query: pageQuery,
    ok: { status: 200, data: pageSchema(webhookSchema) },
    errors: ['validation_failed', ...PROJECT],
  },
  {
    method: 'post',
    path: '/api/project/:projectId/webhooks',
    id: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Create a webhook (its whsec_ secret is in this response only)',
    auth: 'session',
    body: createWebhookBody,
    ok: { status: 201, data: webhookCreatedSchema },
    errors: PROJECT,
  },
  {
    method: 'get',
    path: '/api/project/:projectId/webhooks/:webhookId',
    id: 'getWebhook',
    tag: 'Webhooks',
    summary: 'Get a webhook',
    auth: 'session',
    ok: { status: 200, data: webhookSchema },
    errors: PROJECT,
  },
  {
    method: 'patch',
    path: '/api/project/:projectId/webhooks/:webhookId',
    id: 'updateWebhook',
    tag: 'Webhooks',
    summary: 'Change a webhook (PUT does the same)',
    auth: 'session',
    body: updateWebhookBody,
    ok: { status: 200, data: webhookSchema },
    errors: PROJECT,
  },
  {
    method: 'put',
    path: '/api/project/:projectId/webhooks/:webhookId',
    id: 'replaceWebhook',
    tag: 'Webhooks',
    summary: 'Change a webhook (as PATCH)',
    auth: 'session',
    body: updateWebhookBody,
    ok: { status: 200, data: webhookSchema },
    errors: PROJECT,
  },
  {
    method: 'delete',
    path: '/api/project/:projectId/webhooks/:webhookId',
    id: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook',
    auth: 'session',
    ok: { status: 200, data: deleted(webhookSchema) },
    errors: PROJECT,
  },
  {
    method: 'get',
    path: '/api/project/:projectId/webhooks/:webhookId/deliveries',
    id: 'listDeliveries',
    tag: 'Webhooks',
    summary: 'The delivery log of a webhook',
    auth: 'session',
    query: pageQuery,
    ok: { status: 200, data: pageSchema(deliverySchema) },
    errors: ['validation_failed', ...PROJECT],
  },
  {
    method: 'post',
    path: '/api/project/:projectId/webhooks/:webhookId/deliveries/:deliveryId/retry',
    id: 'retryDelivery',
    tag: 'Webhooks',
    summary: 'Retry a delivery now',
    auth: 'session',
    ok: { status: 200, data: deliverySchema },
    errors: PROJECT,
  },
  {
    method: 'post',
    path: '/api/project/:projectId/webhooks/:webhookId/test',
    id: 'testWebhook',
    tag: 'Webhooks',
    summary: 'Send a test ping',
    auth: 'session',
    ok: { status: 200, data: deliverySchema },
    errors: PROJECT,
  },
  // ---- sign-up surface (docs/signup.md) ----
  {
    method: 'options',
    path: '/v1/waitlist/:slug/challenge',
    id: 'preflightChallenge',
    tag: 'Sign-up surface',
    summary: 'CORS preflight',
    auth: 'none',
    ok: { status: 204, empty: true },
  },
  {
    method: 'options',
    path: '/v1/waitlist/:slug/form',
    id: 'preflightForm',
    tag: 'Sign-up surface',
    summary: 'CORS preflight',
    auth: 'none',
    ok: { status: 204, empty: true },
  },
  {
    method: 'get',
    path: '/v1/waitlist/:slug/challenge',
    id: 'getChallenge',
    tag: 'Sign-up surface',
    summary: 'A proof-of-work challenge for the join (when the project asks for one)',
    auth: 'apiKey',
    ok: { status: 200, data: challengeSchema },
    errors: ['not_found', 'forbidden', 'rate_limited'],
  },
  {
    method: 'get',
    path: '/v1/waitlist/:slug/form',
    id: 'getForm',
    tag: 'Sign-up surface',
    summary: 'The join form’s description: custom fields and settings for a widget',
    auth: 'apiKey',
    ok: { status: 200, data: publicFormSchema },
    errors: ['not_found', 'forbidden', 'rate_limited'],
  },
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
      content: {
        'text/csv': { type: 'string' },
        'application/x-ndjson': { type: 'string' },
      },
    },
    ok: { status: 200, data: importResultSchema },
    errors: ['validation_failed', ...PROJECT, 'payload_too_large', 'unsupported_media_type'],
  },
];
