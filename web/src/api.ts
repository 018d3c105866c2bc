// The dashboard's only way to the server: the public management API on the same origin, same session
// cookie. Every error envelope becomes an ApiError whose message is meant for people.
import type { ApiKey, AuthStatus, CreatedApiKey, Entry, Issue, Page, Project, Stats, User } from '../../src/contract/types.js';
import { ApiError as BaseApiError } from '../../src/client/index.js';

export type { ApiKey, AuthStatus, CreatedApiKey, Entry, Issue, Page, Project, Stats, User };

/** The CLI client's error (status, code, message, issues), plus a display form for the dashboard. */
export class ApiError extends BaseApiError {
  /** The message with each field problem spelled out, for display. */
  get text(): string {
    if (!this.issues.length) return this.message;
    return `${this.message}: ${this.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`;
  }
}

/** Called on any 401 so the app can send the user back to the login page. */
let onUnauthorized: () => void = () => {};
export const setUnauthorizedHandler = (fn: () => void) => (onUnauthorized = fn);

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network', 'Cannot reach the server. Check that it is running and try again.');
  }
  // biome-ignore lint/suspicious/noExplicitAny: the parsed body is read field by field with optional chaining below
  let env: any;
  try {
    env = await res.json();
  } catch {
    throw new ApiError(res.status, 'bad_response', `The server answered ${res.status} without a readable message.`);
  }
  if (env?.status === 'success') return env.data as T;
  const err = new ApiError(res.status, env?.error?.code ?? 'unknown', env?.message ?? `Request failed (${res.status})`, env?.error?.issues);
  if (res.status === 401 && !path.startsWith('/api/auth/')) onUnauthorized();
  throw err;
}

const enc = encodeURIComponent;
const qs = (q: Record<string, string | number | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
};

export const api = {
  me: () => request<User>('GET', '/api/auth/me'),
  authStatus: () => request<AuthStatus>('GET', '/api/auth/status'),
  signup: (b: { email: string; password: string; name?: string }) => request<User>('POST', '/api/auth/signup', b),
  login: (b: { email: string; password: string }) => request<User>('POST', '/api/auth/login', b),
  logout: () => request<unknown>('POST', '/api/auth/logout'),

  projects: (page = 1, limit = 100) => request<Page<Project>>('GET', `/api/project${qs({ page, limit })}`),
  project: (id: string) => request<Project>('GET', `/api/project/${enc(id)}`),
  createProject: (b: { name: string; slug?: string }) => request<Project>('POST', '/api/project', b),
  renameProject: (id: string, name: string) => request<Project>('PUT', `/api/project/${enc(id)}`, { name }),
  deleteProject: (id: string) => request<unknown>('DELETE', `/api/project/${enc(id)}`),

  keys: (pid: string, page = 1, limit = 100) => request<Page<ApiKey>>('GET', `/api/project/${enc(pid)}/apikey${qs({ page, limit })}`),
  createKey: (pid: string, name: string, kind?: 'publishable' | 'secret') =>
    request<CreatedApiKey>('POST', `/api/project/${enc(pid)}/apikey`, { name, ...(kind ? { kind } : {}) }),
  renameKey: (pid: string, kid: string, name: string) => request<ApiKey>('PUT', `/api/project/${enc(pid)}/apikey/${enc(kid)}`, { name }),
  revokeKey: (pid: string, kid: string) => request<unknown>('DELETE', `/api/project/${enc(pid)}/apikey/${enc(kid)}`),

  entries: (pid: string, q: { page: number; limit: number; search?: string }) =>
    request<Page<Entry>>('GET', `/api/project/${enc(pid)}/waitlist${qs(q)}`),
  updateEntry: (pid: string, eid: string, name: string | null) =>
    request<Entry>('PUT', `/api/project/${enc(pid)}/waitlist/${enc(eid)}`, { name }),
  deleteEntry: (pid: string, eid: string) => request<unknown>('DELETE', `/api/project/${enc(pid)}/waitlist/${enc(eid)}`),
  exportUrl: (pid: string, format: 'csv' | 'json' | 'ndjson', search?: string) =>
    `/api/project/${enc(pid)}/waitlist/export${qs({ format, search })}`,

  stats: (pid: string) => request<Stats>('GET', `/api/project/${enc(pid)}/stats`),
};

/** A message for anything thrown: the envelope's words for API errors. */
export const errorText = (e: unknown) => (e instanceof ApiError ? e.text : e instanceof Error ? e.message : String(e));
