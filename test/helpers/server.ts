// Starts the real built server (`node bin/waitlist.js serve`) on a temp database and port 0, and a
// tiny HTTP client with a cookie jar. Set TEST_DATABASE_URL to run on PostgreSQL (a fresh database
// per server); otherwise a temp SQLite file is used.
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/waitlist.js');

export interface TestServer {
  url: string;
  dbFile: string;
  /** Env that points `waitlist admin …` at this server's database. */
  dbEnv: Record<string, string>;
  proc: ResultPromise;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Reuse this database (SQLite file or PostgreSQL URL) instead of a fresh one. */
  reuse?: { dbFile: string; dbEnv: Record<string, string> };
}

/** Which database the suite runs on: `pg` when TEST_DATABASE_URL is set. */
export const DIALECT: 'sqlite' | 'pg' = process.env.WAITLIST_TEST_DB === 'pg' && process.env.TEST_DATABASE_URL ? 'pg' : 'sqlite';

async function freshDatabase(): Promise<{ dbFile: string; dbEnv: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'waitlist-test-'));
  const dbFile = join(dir, 'test.db');
  if (DIALECT === 'sqlite') return { dbFile, dbEnv: { WAITLIST_DB: dbFile } };
  const { createPgDatabase } = await import('./pg.js');
  const url = await createPgDatabase(process.env.TEST_DATABASE_URL!);
  return { dbFile, dbEnv: { DATABASE_URL: url } };
}

/** Starts a server and resolves once it printed its URL. */
export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const db = opts.reuse ?? (await freshDatabase());
  const env: Record<string, string> = { WAITLIST_RATE_LIMIT: 'off', ...db.dbEnv, ...opts.env };
  if (!('DATABASE_URL' in env)) env.DATABASE_URL = '';
  const proc = execa('node', [BIN, 'serve', '--port', '0', ...(opts.args ?? [])], {
    env,
    reject: false,
    all: true,
    buffer: false,
  });
  let out = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20_000);
    proc.all!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
    void proc.then(() => reject(new Error(`server exited:\n${out}`)));
  });
  return {
    url,
    dbFile: db.dbFile,
    dbEnv: db.dbEnv,
    proc,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && !proc.killed) proc.kill(signal);
      await proc;
    },
  };
}

/** Removes a server's temp directory (its SQLite file). */
export function cleanup(server: Pick<TestServer, 'dbFile'>) {
  rmSync(join(server.dbFile, '..'), { recursive: true, force: true });
}

/**
 * One server for the test file (or the describe block) it is called in: started before its tests, stopped
 * and its database removed after them. Use the result as the TestServer (`srv.url`, `srv.dbEnv`) inside
 * tests and hooks; hooks registered after this call see it started.
 */
export function useServer(opts: StartOptions = {}): TestServer {
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startServer(opts);
  });
  afterAll(async () => {
    if (!started) return;
    await started.stop();
    cleanup(started);
  });
  const srv = () => {
    if (!started) throw new Error('useServer: the server starts in beforeAll; use it inside a test or a later hook');
    return started;
  };
  return {
    get url() {
      return srv().url;
    },
    get dbFile() {
      return srv().dbFile;
    },
    get dbEnv() {
      return srv().dbEnv;
    },
    get proc() {
      return srv().proc;
    },
    output: () => srv().output(),
    stop: (signal) => srv().stop(signal),
  };
}

/**
 * A `startServer` for a test file that starts any number of servers: every one it started is stopped and
 * its database removed after the file's tests (or the describe block's, when called in one).
 */
export function serversForFile(): (opts?: StartOptions) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) {
      await s.stop();
      cleanup(s);
    }
  });
  return async (opts) => {
    const s = await startServer(opts);
    servers.push(s);
    return s;
  };
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Every response any Client received in this test file (method, path, status, body + headers). */
export const responseLog: { method: string; path: string; status: number; text: string }[] = [];

/** A client for one user: keeps the session cookie between calls. */
export class Client {
  cookie = '';
  constructor(readonly base: string) {}

  async req<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.cookie) h.cookie = this.cookie;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const r = await fetch(this.base + path, { method, headers: h, body: payload });
    const set = r.headers.get('set-cookie');
    if (set) {
      const m = /waitlist_session=([^;]*)/.exec(set);
      if (m) this.cookie = m[1] ? `waitlist_session=${m[1]}` : '';
    }
    const text = await r.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    responseLog.push({ method, path, status: r.status, text: text + JSON.stringify([...r.headers]) });
    return { status: r.status, headers: r.headers, body: parsed as T, text };
  }
  get = <T = any>(p: string, h?: Record<string, string>) => this.req<T>('GET', p, undefined, h);
  post = <T = any>(p: string, b?: unknown, h?: Record<string, string>) => this.req<T>('POST', p, b, h);
  put = <T = any>(p: string, b?: unknown, h?: Record<string, string>) => this.req<T>('PUT', p, b, h);
  del = <T = any>(p: string, h?: Record<string, string>) => this.req<T>('DELETE', p, undefined, h);
}

let seq = 0;
/** A unique email for a test. */
export const uniqueEmail = (tag = 'user') => `${tag}-${process.pid}-${Date.now()}-${++seq}@example.com`;

/** Signs up (first user, or with --open-signup) and returns a logged-in client. */
export async function signedUp(url: string, email = uniqueEmail(), password = 'correct horse'): Promise<Client> {
  const c = new Client(url);
  const r = await c.post('/api/auth/signup', { email, password });
  if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${r.text}`);
  return c;
}

/** Creates a project and a key; returns ids and the full key. */
export async function projectWithKey(c: Client, name = `Project ${++seq}`) {
  const p = await c.post('/api/project', { name });
  if (p.status !== 201) throw new Error(`create project failed: ${p.text}`);
  const k = await c.post(`/api/project/${p.body.data.projectId}/apikey`, { name: 'test key' });
  if (k.status !== 201) throw new Error(`create key failed: ${k.text}`);
  return {
    projectId: p.body.data.projectId as string,
    slug: p.body.data.slug as string,
    keyId: k.body.data.keyId as string,
    key: k.body.data.key as string,
  };
}

/** POSTs a join with the key. */
export function postJoin(url: string, slug: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const c = new Client(url);
  const h: Record<string, string> = { ...headers };
  if (key !== undefined) h.authorization = `Bearer ${key}`;
  return c.post(`/v1/waitlist/${slug}/join`, body, h);
}
