// Assertions shared by the server tests: envelope shape, secret scanning over every collected
// response, raw HTTP (chunked bodies, exact headers) and the admin CLI.
import { request } from 'node:http';
import { expect } from 'vitest';
import { eventSettingsDefaults } from '../../src/contract/settings-events.js';
import { lifecycleSettingsDefaults } from '../../src/contract/settings-lifecycle.js';
import { surfaceSettingsDefaults } from '../../src/contract/settings-surface.js';
import { responseLog, type Res, type TestServer } from './server.js';

/**
 * A new project's settings (GET /api/project/:projectId/settings): each feature's defaults from the contract
 * (test/docs/settings-defaults.test.ts holds them to the tables of the docs) and the join protections off.
 */
export const SETTINGS_DEFAULTS = {
  ...eventSettingsDefaults,
  ...lifecycleSettingsDefaults,
  ...surfaceSettingsDefaults,
  allowedOrigins: [] as string[],
  blockDisposableEmails: false,
  honeypotField: null as string | null,
};

export const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KEY_CREATE = /^\/api\/project\/[^/]+\/apikey\/?$/;

/** Checks the success envelope and returns `data`. */
export function ok<T = any>(r: Res, status = 200): T {
  expect(r.status, r.text).toBe(status);
  expect(r.body.status).toBe('success');
  expect(typeof r.body.message).toBe('string');
  expect(Number.isInteger(r.body.timestamp)).toBe(true);
  expect(Math.abs(r.body.timestamp - Date.now())).toBeLessThan(60_000);
  expect(Object.keys(r.body).sort()).toEqual(['data', 'message', 'status', 'timestamp']);
  return r.body.data as T;
}

/** Checks the error envelope with its status and code; returns the issues (if any). */
export function fails(r: Res, status: number, code: string): { path: string; message: string }[] {
  expect(r.status, r.text).toBe(status);
  expect(r.body.status, r.text).toBe('error');
  expect(r.body.error.code, r.text).toBe(code);
  expect(typeof r.body.message).toBe('string');
  expect(r.body.message.length).toBeGreaterThan(0);
  expect(Number.isInteger(r.body.timestamp)).toBe(true);
  expect(Math.abs(r.body.timestamp - Date.now())).toBeLessThan(60_000);
  expect(Object.keys(r.body).sort()).toEqual(['error', 'message', 'status', 'timestamp']);
  const issues = r.body.error.issues as { path: string; message: string }[] | undefined;
  if (code === 'validation_failed') {
    expect(Array.isArray(issues) && issues.length > 0, r.text).toBe(true);
    for (const i of issues!) {
      expect(typeof i.path).toBe('string');
      expect(typeof i.message).toBe('string');
    }
  } else {
    expect(issues, r.text).toBeUndefined();
  }
  return issues ?? [];
}

/** Issue paths of a validation failure. */
export const issuePaths = (r: Res) => fails(r, 400, 'validation_failed').map((i) => i.path);

/**
 * Scans every response collected in this file: none contains a bcrypt hash, and no response other
 * than a key's create response contains a full key (or its secret part).
 */
export function assertNoSecretsLeaked(extraKeys: string[] = []) {
  const keys = new Set(extraKeys);
  for (const r of responseLog) {
    if (r.method === 'POST' && r.status === 201 && KEY_CREATE.test(r.path)) {
      const m = /"key":"(wl_[^"]+)"/.exec(r.text);
      if (m) keys.add(m[1]!);
    }
  }
  let scanned = 0;
  for (const r of responseLog) {
    scanned++;
    expect(r.text, `${r.method} ${r.path}`).not.toMatch(/\$2[aby]\$\d\d\$/);
    if (r.method === 'POST' && r.status === 201 && KEY_CREATE.test(r.path)) continue;
    for (const k of keys) {
      expect(r.text.includes(k), `full key in ${r.method} ${r.path}`).toBe(false);
      expect(r.text.includes(k.slice(-24)), `key secret in ${r.method} ${r.path}`).toBe(false);
    }
  }
  return { scanned, keys: keys.size };
}

export interface RawRes {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

/** A raw request with node:http: exact headers, and `chunks` sent with chunked encoding. */
export function raw(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string | Buffer; chunks?: (string | Buffer)[] } = {},
): Promise<RawRes> {
  const u = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: opts.headers ?? {} }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        responseLog.push({ method, path, status: res.statusCode!, text });
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
    });
    // The server may answer 413 and close before the whole body went out.
    req.on('error', reject);
    if (opts.chunks) {
      for (const c of opts.chunks) req.write(c);
      req.end();
    } else {
      req.end(opts.body);
    }
  });
}

/** Runs `waitlist admin …` in-process against the server's database (env = the server's db env only). */
export async function admin(srv: Pick<TestServer, 'dbEnv'>, args: string[], input?: string) {
  const { cli } = await import('../cli/cli.js');
  const r = await cli(['admin', ...args], { env: srv.dbEnv, input: input ?? '' });
  return { ...r, all: r.stdout + r.stderr };
}
