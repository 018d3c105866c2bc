// The dashboard's way to the server: the same typed client as the CLI (src/client), on the page's own
// origin. The browser keeps and sends the session cookie; the client adds nothing of its own. Pages call
// `api.<method>` with the client's names; this file only adds the display text of errors.
import { ApiError, WaitlistClient } from '../../src/client/index.js';
import type { ApiKey, AuthStatus, CreatedApiKey, Entry, Issue, Page, Project, Stats, User } from '../../src/contract/types.js';

export type { ApiKey, AuthStatus, CreatedApiKey, Entry, Issue, Page, Project, Stats, User };
export { ApiError };

/** Called on any 401 (outside /api/auth/) so the app can send the user back to the login page. */
let onUnauthorized: () => void = () => {};
export const setUnauthorizedHandler = (fn: () => void) => (onUnauthorized = fn);

export const api = new WaitlistClient({ server: location.origin, browser: true, onUnauthorized: () => onUnauthorized() });

/** The message of anything thrown, for people: the envelope's words, with each field problem spelled out. */
export function errorText(e: unknown): string {
  if (!(e instanceof ApiError)) return e instanceof Error ? e.message : String(e);
  if (e.code === 'network') return 'Cannot reach the server. Check that it is running and try again.';
  if (e.code === 'bad_response' || e.code.startsWith('http_')) return `The server answered ${e.status} without a readable message.`;
  if (!e.issues.length) return e.message;
  return `${e.message}: ${e.issues.map((i) => (i.path ? `${pathText(i.path)}: ${i.message}` : i.message)).join('; ')}`;
}

/** An API field path for people: list positions counted from 1 (`fields.5.key` → `fields #6 key`). */
export function pathText(path: string): string {
  return path
    .split('.')
    .map((part) => (/^\d+$/.test(part) ? `#${Number(part) + 1}` : part))
    .join(' ');
}
