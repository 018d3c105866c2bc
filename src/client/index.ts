// Typed client for the management API: base URL, session cookie, and envelope → data or ApiError.
// Uses the global fetch only, so the CLI (Node) and the dashboard (browser, same origin: the browser
// keeps the cookie) share it. Request bodies are the contract schemas' types (commands validate with the
// schemas first), responses the contract's shapes.
import type {
  ApiKey,
  AuthStatus,
  CreatedApiKey,
  Deleted,
  Entry,
  ErrorEnvelope,
  Issue,
  Page,
  Project,
  Stats,
  User,
} from '../contract/types.js';
import type {
  CreateKeyBody,
  CreateProjectBody,
  EntryListParams,
  ExportParams,
  LoginBody,
  PageParams,
  ProjectSettings,
  ProjectSettingsBody,
  SignupBody,
  UpdateEntryBody,
  UpdateKeyBody,
  UpdateProjectBody,
} from '../contract/schemas.js';
import type { EntryStatusName, InvitePreview, InviteResult, LeaderboardEntry } from '../contract/lifecycle.js';
import type {
  CreateWebhookBody,
  Delivery,
  EmailLogItem,
  PreviewTemplateBody,
  PutTemplatesBody,
  RenderedEmail,
  Templates,
  UpdateWebhookBody,
  Webhook,
  WebhookCreated,
  WebhookRotated,
} from '../contract/events.js';
import type { ImportResult } from '../contract/responses.js';
import { SESSION_COOKIE } from '../contract/wire.js';

/**
 * An error answered by the server (its envelope), or a transport failure: status 0 with code `network`
 * (no connection) or `timeout` (connected, but no answer within `timeoutMs`).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: Issue[] = [],
    /** For a `network` error: why the connection failed, its cause's code (`ECONNREFUSED`, `ECONNRESET`…) when it has one. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ClientOptions {
  server: string;
  /** The session token, sent as the cookie (Node). */
  session?: string | undefined;
  /** In a browser: the browser keeps and sends the session cookie (JS cannot read it); no User-Agent is set. */
  browser?: boolean;
  /** Sent as User-Agent outside a browser (default `waitlist-cli`). */
  userAgent?: string;
  /** Called before an ApiError with status 401 is thrown, except for the /api/auth/ routes (e.g. show the login page). */
  onUnauthorized?: () => void;
  /**
   * How long to wait for a response to start (its status and headers), in milliseconds; past it the
   * request is abandoned with an ApiError of code `timeout`. A body that has started is never cut (an
   * export streams as long as it takes), and `importEntries` has no such limit (the server answers only
   * once it has read and processed the whole upload). Default: none (the runtime's own).
   */
  timeoutMs?: number | undefined;
}

type Query = Record<string, string | number | undefined>;

interface RequestOptions {
  body?: unknown;
  query?: Query;
}

const enc = encodeURIComponent;

/** The management API of one server, for one session. */
export class WaitlistClient {
  readonly server: string;
  session: string | undefined;
  private readonly userAgent: string | null;
  private readonly browser: boolean;
  private readonly onUnauthorized: (() => void) | undefined;
  private readonly timeoutMs: number | undefined;

  constructor(opts: ClientOptions) {
    this.server = opts.server.replace(/\/+$/, '');
    this.session = opts.session;
    this.browser = opts.browser ?? false;
    this.userAgent = this.browser ? null : (opts.userAgent ?? 'waitlist-cli');
    this.onUnauthorized = opts.onUnauthorized;
    this.timeoutMs = opts.timeoutMs;
  }

  /** The absolute URL of an API path with its query (undefined values left out). */
  url(path: string, query: Query = {}): string {
    const u = new URL(this.server + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** Sends a request; resolves with the raw Response when it is 2xx, throws ApiError otherwise. */
  async raw(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    if (this.session) headers.cookie = `${SESSION_COOKIE}=${this.session}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    // The deadline covers the wait for the status and headers only: it is cleared as soon as they are in,
    // so the body (a long export) streams for as long as it takes.
    const deadline = this.timeoutMs ? new AbortController() : undefined;
    const timer = deadline ? setTimeout(() => deadline.abort(), this.timeoutMs) : undefined;
    let res: Response;
    try {
      res = await fetch(this.url(path, opts.query), { method, headers, body, redirect: 'manual', signal: deadline?.signal ?? null });
    } catch (err) {
      if (deadline?.signal.aborted) {
        throw new ApiError(0, 'timeout', `the server at ${this.server} did not answer within ${this.timeoutMs! / 1000} s`);
      }
      const why = networkCause(err);
      throw new ApiError(0, 'network', `cannot reach the server at ${this.server} (${why})`, [], why);
    } finally {
      clearTimeout(timer);
    }
    if (res.ok) return res;
    if (res.status === 401 && !path.startsWith('/api/auth/')) this.onUnauthorized?.();
    throw await errorOf(res);
  }

  /** Sends a request and returns the envelope's `data`. */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, path, opts);
    const env = (await res.json().catch(() => null)) as { status?: string; data?: unknown } | null;
    if (!env || env.status !== 'success') {
      throw new ApiError(res.status, 'bad_response', `unexpected response from ${this.server}${path}`);
    }
    return env.data as T;
  }

  // ---- auth ----
  /** Creates an account; the new session is kept on the client (see `session`). */
  signup(body: SignupBody) {
    return this.authenticate('/api/auth/signup', body);
  }
  /** Logs in; the new session is kept on the client (see `session`). */
  login(body: LoginBody) {
    return this.authenticate('/api/auth/login', body);
  }
  logout = () => this.request<null>('POST', '/api/auth/logout');
  /** Public: whether sign-up is open and whether the server has any account yet. */
  authStatus = () => this.request<AuthStatus>('GET', '/auth/status');
  me = () => this.request<User>('GET', '/api/auth/me');

  private async authenticate(path: string, body: unknown): Promise<User> {
    const res = await this.raw('POST', path, { body });
    const env = (await res.json()) as { data: User };
    if (this.browser) return env.data; // the browser stored the cookie
    const token = sessionFromSetCookie(res.headers.getSetCookie());
    if (!token) throw new ApiError(res.status, 'bad_response', 'the server set no session cookie');
    this.session = token;
    return env.data;
  }

  // ---- projects ----
  listProjects = (q: PageParams = {}) => this.request<Page<Project>>('GET', '/api/project', { query: q });
  getProject = (p: string) => this.request<Project>('GET', `/api/project/${enc(p)}`);
  createProject = (body: CreateProjectBody) => this.request<Project>('POST', '/api/project', { body });
  updateProject = (p: string, body: UpdateProjectBody) => this.request<Project>('PUT', `/api/project/${enc(p)}`, { body });
  deleteProject = (p: string) => this.request<Deleted<Project>>('DELETE', `/api/project/${enc(p)}`);
  getSettings = (p: string) => this.request<ProjectSettings>('GET', `/api/project/${enc(p)}/settings`);
  updateSettings = (p: string, body: ProjectSettingsBody) =>
    this.request<ProjectSettings>('PUT', `/api/project/${enc(p)}/settings`, { body });

  // ---- keys ----
  listKeys = (p: string, q: PageParams = {}) => this.request<Page<ApiKey>>('GET', `/api/project/${enc(p)}/apikey`, { query: q });
  getKey = (p: string, k: string) => this.request<ApiKey>('GET', `/api/project/${enc(p)}/apikey/${enc(k)}`);
  createKey = (p: string, body: CreateKeyBody) => this.request<CreatedApiKey>('POST', `/api/project/${enc(p)}/apikey`, { body });
  updateKey = (p: string, k: string, body: UpdateKeyBody) =>
    this.request<ApiKey>('PUT', `/api/project/${enc(p)}/apikey/${enc(k)}`, { body });
  deleteKey = (p: string, k: string) => this.request<Deleted<ApiKey>>('DELETE', `/api/project/${enc(p)}/apikey/${enc(k)}`);

  // ---- entries ----
  listEntries = (p: string, q: EntryListParams & { status?: EntryStatusName; sort?: 'newest' | 'position' } = {}) =>
    this.request<Page<Entry>>('GET', `/api/project/${enc(p)}/waitlist`, { query: q });
  getEntry = (p: string, e: string) => this.request<Entry>('GET', `/api/project/${enc(p)}/waitlist/${enc(e)}`);
  updateEntry = (p: string, e: string, body: UpdateEntryBody) =>
    this.request<Entry>('PUT', `/api/project/${enc(p)}/waitlist/${enc(e)}`, { body });
  deleteEntry = (p: string, e: string) => this.request<Deleted<Entry>>('DELETE', `/api/project/${enc(p)}/waitlist/${enc(e)}`);
  /** The export's URL (a download link in the dashboard). */
  exportUrl = (p: string, q: ExportParams) => this.url(`/api/project/${enc(p)}/waitlist/export`, q);
  /** The export as a streaming Response (read `body`; never buffered here). */
  exportEntries = (p: string, q: ExportParams) => this.raw('GET', `/api/project/${enc(p)}/waitlist/export`, { query: q });
  stats = (p: string) => this.request<Stats>('GET', `/api/project/${enc(p)}/stats`);

  // ---- sign-up surface ----
  /** Uploads a CSV or NDJSON file (a Blob in browsers, a stream in Node) as it is, without buffering it. */
  async importEntries(p: string, file: Blob | ReadableStream<Uint8Array>, q: ImportQuery): Promise<ImportResult> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': q.format === 'ndjson' ? 'application/x-ndjson' : 'text/csv',
    };
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    if (this.session) headers.cookie = `${SESSION_COOKIE}=${this.session}`;
    const query = { format: q.format, dryRun: q.dryRun ? 'true' : undefined, dateFormat: q.dateFormat };
    const path = `/api/project/${enc(p)}/import`;
    let res: Response;
    try {
      // `duplex` lets Node's fetch stream a request body.
      res = await fetch(this.url(path, query), {
        method: 'POST',
        headers,
        body: file,
        duplex: 'half',
      } as RequestInit);
    } catch (err) {
      const why = networkCause(err);
      throw new ApiError(0, 'network', `cannot reach the server at ${this.server} (${why})`, [], why);
    }
    if (!res.ok) throw await errorOf(res);
    // Like request(): a body that is not JSON, is cut off, or is not a success envelope with an object in
    // it is a bad response, never a raw parser error or `undefined`.
    const env = (await res.json().catch(() => null)) as { status?: string; data?: unknown } | null;
    if (!env || env.status !== 'success' || typeof env.data !== 'object' || env.data === null) {
      throw new ApiError(res.status, 'bad_response', `unexpected response from ${this.server}${path}`);
    }
    return env.data as ImportResult;
  }
  // ---- lifecycle ----
  /** Invites the next `count` waiting entries or the given ones (dryRun: only lists who would be invited). */
  inviteEntries = (p: string, body: { count: number; dryRun?: boolean } | { entryIds: string[]; dryRun?: boolean }) =>
    this.request<InviteResult | InvitePreview>('POST', `/api/project/${enc(p)}/invites`, { body });
  /** Top referrers with their full entries. */
  leaderboard = (p: string) => this.request<LeaderboardEntry[]>('GET', `/api/project/${enc(p)}/leaderboard`);
  // ---- webhooks, email log, email templates (events layer) ----
  listWebhooks = (p: string, q: { page?: number; limit?: number } = {}) =>
    this.request<Page<Webhook>>('GET', `/api/project/${enc(p)}/webhooks`, { query: q });
  getWebhook = (p: string, w: string) => this.request<Webhook>('GET', `/api/project/${enc(p)}/webhooks/${enc(w)}`);
  createWebhook = (p: string, body: CreateWebhookBody) => this.request<WebhookCreated>('POST', `/api/project/${enc(p)}/webhooks`, { body });
  updateWebhook = (p: string, w: string, body: UpdateWebhookBody) =>
    this.request<Webhook>('PATCH', `/api/project/${enc(p)}/webhooks/${enc(w)}`, { body });
  deleteWebhook = (p: string, w: string) =>
    this.request<Webhook & { deletedAt: string }>('DELETE', `/api/project/${enc(p)}/webhooks/${enc(w)}`);
  listDeliveries = (p: string, w: string, q: { page?: number; limit?: number } = {}) =>
    this.request<Page<Delivery>>('GET', `/api/project/${enc(p)}/webhooks/${enc(w)}/deliveries`, { query: q });
  retryDelivery = (p: string, w: string, d: string) =>
    this.request<Delivery>('POST', `/api/project/${enc(p)}/webhooks/${enc(w)}/deliveries/${enc(d)}/retry`);
  testWebhook = (p: string, w: string) => this.request<Delivery>('POST', `/api/project/${enc(p)}/webhooks/${enc(w)}/test`);
  /** A new signing secret (returned only here); the old one signs beside it for `keepPreviousFor` seconds (server default: a day). */
  rotateWebhookSecret = (p: string, w: string, body: { keepPreviousFor?: number } = {}) =>
    this.request<WebhookRotated>('POST', `/api/project/${enc(p)}/webhooks/${enc(w)}/rotate-secret`, {
      ...(body.keepPreviousFor === undefined ? {} : { body }),
    });
  listEmails = (p: string, q: { page?: number; limit?: number } = {}) =>
    this.request<Page<EmailLogItem>>('GET', `/api/project/${enc(p)}/emails`, { query: q });
  getTemplates = (p: string) => this.request<Templates>('GET', `/api/project/${enc(p)}/templates`);
  updateTemplates = (p: string, body: PutTemplatesBody) => this.request<Templates>('PUT', `/api/project/${enc(p)}/templates`, { body });
  previewTemplate = (p: string, body: PreviewTemplateBody) =>
    this.request<RenderedEmail>('POST', `/api/project/${enc(p)}/templates/preview`, { body });
}

export interface ImportQuery {
  format: 'csv' | 'ndjson';
  dryRun?: boolean;
  /** How slash dates read: `auto` (settled by the file), `dmy` or `mdy`. */
  dateFormat?: 'auto' | 'dmy' | 'mdy';
}

export type { ImportResult };

/** The session token from a response's Set-Cookie headers; undefined when none (or it was cleared). */
export function sessionFromSetCookie(headers: string[]): string | undefined {
  for (const h of headers) {
    const m = new RegExp(`^\\s*${SESSION_COOKIE}=([^;]*)`).exec(h);
    if (m && m[1]) return decodeURIComponent(m[1]);
  }
  return undefined;
}

/** Why fetch failed, in a word: the cause's code (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`), else its message. */
function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

/** Turns an error response into an ApiError, whatever its body. */
async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const env = JSON.parse(text) as ErrorEnvelope;
    if (env && env.status === 'error' && env.error?.code) {
      return new ApiError(res.status, env.error.code, env.message, env.error.issues ?? []);
    }
  } catch {
    /* not an envelope */
  }
  return new ApiError(res.status, `http_${res.status}`, `${res.status} ${res.statusText || 'error'} from the server`);
}
