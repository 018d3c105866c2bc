// Builds the OpenAPI 3.1 document from the route list (routes.ts) and the contract's zod schemas, with
// zod 4's own JSON Schema output (z.toJSONSchema: OpenAPI 3.1 schemas are JSON Schema 2020-12). Named
// schemas (`.meta({ id })`) become components; everything else is inlined. Built once, on first request.
import { z } from 'zod';
import { ENTRY_STATUSES } from '../../contract/lifecycle.js';
import { LIMITS, EXPORT_FORMATS, createKeyBody, joinBody, metadataSchema } from '../../contract/schemas.js';
import { errorEnvelopeSchema, successEnvelope } from '../../contract/responses.js';
import { ERROR_STATUS, type ErrorCode } from '../../contract/types.js';
import { SESSION_COOKIE } from '../../contract/wire.js';
import { ROUTES, type ApiRoute } from './routes.js';

type Json = Record<string, unknown>;

/**
 * Query parameters whose zod schema transforms a string (so its JSON Schema would only say "string"):
 * what a caller sends, spelled out. A query key missing here falls back to its zod input schema.
 */
const QUERY_PARAMS: Record<string, { schema: Json; description: string }> = {
  page: { schema: { type: 'integer', minimum: 1, maximum: LIMITS.pageMax, default: 1 }, description: 'Page number, from 1' },
  limit: {
    schema: { type: 'integer', minimum: 1, maximum: LIMITS.pageLimitMax, default: LIMITS.pageLimitDefault },
    description: 'Items per page',
  },
  search: {
    schema: { type: 'string', maxLength: LIMITS.searchChars },
    description: 'Case-insensitive substring of the email or the name (`%` and `_` match literally)',
  },
  format: { schema: { type: 'string', enum: [...EXPORT_FORMATS], default: 'json' }, description: 'Export format' },
  status: { schema: { type: 'string', enum: [...ENTRY_STATUSES] }, description: 'Only entries with this status' },
  sort: {
    schema: { type: 'string', enum: ['newest', 'position'], default: 'newest' },
    description: '`newest` first, or by queue `position` (waiting entries first, in order)',
  },
};

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Tidies zod's output for readers: formats instead of their long regexes, no ±2^53 bounds, metadata as an object. */
function override(ctx: { zodSchema: unknown; jsonSchema: Json }) {
  const js = ctx.jsonSchema;
  const def = (ctx.zodSchema as { _zod: { def: { type: string; out?: { _zod: { def: { format?: string } } } } } })._zod.def;
  if (def.type === 'pipe' && def.out?._zod.def.format === 'email') js.format = 'email';
  if (js.format === 'date-time' || js.format === 'date' || js.format === 'email') delete js.pattern;
  if (js.maximum === MAX_SAFE) delete js.maximum;
  if (js.minimum === -MAX_SAFE) delete js.minimum;
  if (ctx.zodSchema === joinBody.shape.fields) {
    Object.assign(js, {
      type: 'object',
      description: 'Answers to the project’s custom fields (its `fields` setting), by field key',
    });
  }
  if (ctx.zodSchema === joinBody.shape.altcha)
    js.description = 'The solved proof-of-work challenge (GET …/challenge), when the project asks for one';
  if (ctx.zodSchema === joinBody.shape.ref) js.description = 'A referral code of the same project (an unknown one is ignored)';
  if (ctx.zodSchema === createKeyBody.shape.kind) {
    Object.assign(js, {
      default: 'publishable',
      description: '`publishable` (joins and the public reads only; safe in a page) or `secret` (also the server-to-server invite routes)',
    });
  }
  if (ctx.zodSchema === metadataSchema) {
    Object.assign(js, {
      type: 'object',
      description: `Any JSON object, at most ${LIMITS.metadataBytes} bytes serialised and ${LIMITS.metadataDepth} levels deep`,
    });
  }
}

/** Converts one zod schema; its named sub-schemas are moved into `components` and referenced. */
function schemaOf(schema: z.ZodType | Json, io: 'input' | 'output', components: Record<string, Json>): Json {
  if (!(schema instanceof z.ZodType)) return schema;
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', override }) as Json;
  delete out.$schema;
  const defs = (out.$defs ?? {}) as Record<string, Json>;
  delete out.$defs;
  const fixRefs = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(fixRefs);
    if (v && typeof v === 'object') {
      const o: Json = {};
      for (const [k, x] of Object.entries(v))
        o[k] = k === '$ref' && typeof x === 'string' ? x.replace('#/$defs/', '#/components/schemas/') : fixRefs(x);
      return o;
    }
    return v;
  };
  for (const [name, def] of Object.entries(defs)) components[name] = fixRefs(def) as Json;
  return fixRefs(out) as Json;
}

/** OpenAPI path `/api/project/{projectId}` from the Polka path `/api/project/:projectId`. */
export const openapiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const PARAM_TEXT: Record<string, string> = {
  projectId: 'A projectId (`prj_…`) or the project’s slug',
  slug: 'The waitlist’s slug',
  keyId: 'A keyId (`key_…`)',
  entryId: 'An entryId (`ent_…`)',
};

/** The error codes a route can answer: its own plus those its auth, body and prefix imply. */
function errorCodes(r: ApiRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(r.errors ?? []);
  if (r.page) return [...codes]; // a page answers its errors as pages (described by r.page.errors)
  if (r.auth !== 'none') codes.add('unauthorized');
  if (r.body) for (const c of ['invalid_json', 'validation_failed', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(c);
  if (r.path.startsWith('/api/')) codes.add('forbidden'); // a cross-origin Origin header
  if (r.tag !== 'Service' && r.method !== 'options') {
    codes.add('internal');
    codes.add('service_unavailable'); // the database is busy or down (Retry-After)
  }
  return [...codes];
}

const ERROR_JSON = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
/** 429 and 503 say when to try again. */
const RETRY_AFTER = { 'Retry-After': 'Seconds to wait before trying again' };
/** A key route's 401 names its scheme (RFC 6750): `error="invalid_token"` when a key was sent but refused. */
const BEARER_CHALLENGE = { 'WWW-Authenticate': '`Bearer realm="waitlist"` (`, error="invalid_token"` when a key was sent but refused)' };

/** OpenAPI header objects from name → description (every one a string). */
const headersOf = (h: Record<string, string>): Json =>
  Object.fromEntries(Object.entries(h).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));

function operation(r: ApiRoute, components: Record<string, Json>): Json {
  const op: Json = {
    operationId: r.id,
    tags: [r.tag],
    summary: r.summary,
  };
  if (r.description) op.description = r.description;
  op.security = r.auth === 'none' ? [] : [{ [r.auth]: [] }];

  const parameters: Json[] = [...r.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    description: PARAM_TEXT[m[1]!] ?? m[1],
    schema: { type: 'string' },
  }));
  if (r.query) {
    for (const [name, field] of Object.entries(r.query.shape)) {
      const known = r.queryText?.[name] ?? QUERY_PARAMS[name];
      const required = !(field as z.ZodType).safeParse(undefined).success;
      parameters.push({
        name,
        in: 'query',
        required,
        ...(known
          ? { description: known.description, schema: known.schema }
          : { schema: schemaOf(field as z.ZodType, 'input', components) }),
      });
    }
  }
  if (parameters.length) op.parameters = parameters;
  if (r.body) {
    const schema = schemaOf(r.body, 'input', components);
    const content: Json = { 'application/json': { schema } };
    if (r.formPost) content['application/x-www-form-urlencoded'] = { schema: { type: 'object', description: r.formPost.description } };
    op.requestBody = { required: !r.bodyOptional, content };
  }
  if (r.rawBody) {
    const content: Json = {};
    for (const [type, schema] of Object.entries(r.rawBody.content)) content[type] = { schema };
    op.requestBody = { required: true, description: r.rawBody.description, content };
  }

  const responses: Json = {};
  const description = r.ok.description ?? 'Success';
  const okHeaders = r.ok.headers && { headers: headersOf(r.ok.headers) };
  if (r.ok.empty) responses[r.ok.status] = { description, ...okHeaders };
  else if (r.ok.content) {
    const content: Json = {};
    for (const [type, s] of Object.entries(r.ok.content)) content[type] = { schema: schemaOf(s, 'output', components) };
    responses[r.ok.status] = { description, content, ...okHeaders };
  } else {
    const envelope = successEnvelope(r.ok.data ?? z.unknown());
    responses[r.ok.status] = {
      description,
      content: { 'application/json': { schema: schemaOf(envelope, 'output', components) } },
      ...okHeaders,
    };
  }
  if (r.formPost) {
    responses[303] = {
      description: 'A form post’s answer: to the redirectUrl or the hosted page, with the outcome in the query',
      headers: { Location: { schema: { type: 'string' } } },
    };
  }
  // A page answers its errors as a page, or (an unknown project, a rate limit) as the error envelope.
  if (r.page?.errors)
    responses['4XX'] = { description: r.page.errors, content: { 'text/html': { schema: { type: 'string' } }, ...ERROR_JSON } };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(r)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers =
      status === 401 && (r.auth === 'apiKey' || r.auth === 'secretKey')
        ? BEARER_CHALLENGE
        : status === 429 || status === 503
          ? RETRY_AFTER
          : undefined;
    responses[status] = {
      description: `Error envelope; error.code: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      content: ERROR_JSON,
      ...(headers && { headers: headersOf(headers) }),
    };
  }
  op.responses = responses;
  return op;
}

/** The whole OpenAPI 3.1 document. */
export function buildDocument(version: string): Json {
  const components: Record<string, Json> = {};
  schemaOf(errorEnvelopeSchema, 'output', components);
  const paths: Record<string, Json> = {};
  for (const r of ROUTES) {
    const path = openapiPath(r.path);
    paths[path] = { ...paths[path], [r.method]: operation(r, components) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Waitlist API',
      version,
      description:
        'Every JSON response is an envelope: `{status:"success", message, data, timestamp}` or ' +
        '`{status:"error", message, error:{code, issues?}, timestamp}` (timestamp in epoch milliseconds). ' +
        'The management API (`/api`) needs the session cookie from sign-up or log-in and refuses cross-origin ' +
        'requests; the join route (`/v1`) takes a project’s API key as a Bearer token and allows any origin. ' +
        'Every GET route also answers HEAD (the same status and headers, no body).',
    },
    servers: [{ url: '/' }],
    tags: [...new Set(ROUTES.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'Set by POST /api/auth/signup and /api/auth/login' },
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A project’s API key (`wl_pk_…`, publishable: it can only add subscribers and read their public views; a secret key works too)',
        },
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A project’s secret key (`wl_sk_…`), from a server: a publishable key, or a request with an Origin header, answers 403',
        },
      },
    },
  };
}
