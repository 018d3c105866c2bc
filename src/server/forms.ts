// Plain HTML form posts (application/x-www-form-urlencoded) to the join route and the hosted page:
// the body becomes the same object a JSON join sends, and the answer is a 303 redirect.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProjectRow } from '../db/store.js';
import type { AppError } from '../core/errors.js';
import { featureSettings } from '../core/settings.js';
import { readBody } from './http.js';

export function isFormType(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return !!type && type.split(';', 1)[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

export interface FormJoin {
  /** The publishable key from the `key` field (the Authorization header also works). */
  key?: string;
  body: Record<string, unknown>;
}

// Optional text inputs left empty arrive as "": treat them as not given (the JSON contract's `source`
// must not be empty, and an empty `ref` or `altcha` means none).
const DROP_WHEN_EMPTY = new Set(['name', 'source', 'metadata', 'ref', 'altcha']);

/** Reads a form body (≤ 16 KiB) into a join body: `fields.<k>` → `fields: {k}`, `metadata` parsed as JSON. */
export async function readForm(req: IncomingMessage): Promise<FormJoin> {
  const params = new URLSearchParams((await readBody(req)).toString('utf8'));
  const body: Record<string, unknown> = {};
  const fields: Record<string, unknown> = {};
  let key: string | undefined;
  for (const [name, value] of params) {
    if (name === 'key') {
      key ??= value;
    } else if (name.startsWith('fields.')) {
      const k = name.slice('fields.'.length);
      // A checkbox is often paired with a hidden "off" input of the same name: the last value wins.
      fields[k] = value;
    } else if (!(DROP_WHEN_EMPTY.has(name) && value.trim() === '') && !Object.hasOwn(body, name)) {
      body[name] = name === 'metadata' ? parseMetadata(value) : value;
    }
  }
  if (Object.keys(fields).length) body.fields = fields;
  return { key, body };
}

function parseMetadata(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return v; // the schema then says "Metadata must be a JSON object"
  }
}

function withParam(base: string, name: string, value: string): string {
  const hash = base.indexOf('#');
  const [head, tail] = hash < 0 ? [base, ''] : [base.slice(0, hash), base.slice(hash)];
  return `${head}${head.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}${tail}`;
}

/** Where a form post's browser goes next: the project's redirectUrl, else its hosted page. */
export function formTarget(project: ProjectRow, outcome: { ok: true; statusToken?: string } | { ok: false; error: AppError }): string {
  const { redirectUrl } = featureSettings(project);
  const hosted = `/w/${project.slug}`;
  if (outcome.ok) {
    if (redirectUrl) return withParam(redirectUrl, 'status', 'joined');
    return outcome.statusToken ? `${hosted}/status?token=${encodeURIComponent(outcome.statusToken)}` : `${hosted}?status=joined`;
  }
  return withParam(redirectUrl ?? hosted, 'error', outcome.error.code);
}

/** Answers a form post with 303 See Other. */
export function redirect303(res: ServerResponse, location: string, headers: Record<string, string> = {}): void {
  res.writeHead(303, { ...headers, Location: location, 'Content-Length': 0, 'Cache-Control': 'no-store' });
  res.end();
}
