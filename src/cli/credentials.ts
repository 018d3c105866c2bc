// Where the CLI finds its server and session: flags, then WAITLIST_SERVER / WAITLIST_SESSION, then the
// credentials file (conf, mode 0600, in the user's config directory), then the default server.
// The file is opened only when needed, so CI with both env vars and no HOME never touches it.
import { chmodSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type Conf from 'conf';
import { CliError, EXIT } from './errors.js';

export const DEFAULT_SERVER = 'http://127.0.0.1:8080';

export interface StoredCredentials {
  server?: string;
  session?: string;
  email?: string;
}

/** The stored server and session: the credentials file, or a directory of one in tests. */
export interface CredentialStore {
  /** The file's path (it may not exist yet). */
  path(): Promise<string>;
  /** What is stored; an unreadable or absent file counts as empty. */
  read(): Promise<StoredCredentials>;
  /** Stores a server and session (file mode 0600, directory 0700). */
  save(creds: { server: string; session: string; email?: string | undefined }): Promise<void>;
  /** Forgets the stored session (the server URL is kept for the next login). */
  clearSession(): Promise<void>;
}

/**
 * The credentials file, `credentials.json` in `dir` when given, else in the user's config directory
 * (`$XDG_CONFIG_HOME/waitlist`, `~/.config/waitlist` by default).
 */
export function fileCredentials(dir?: string): CredentialStore {
  let conf: Conf<StoredCredentials> | undefined;
  const open = async () => {
    if (!conf) {
      const { default: ConfClass } = await import('conf'); // lazy: --help never loads it
      // conf creates the directory as soon as it is opened, even by a command that only reads it (with
      // the process's umask: 0755). A umask of 077 for that moment makes it 0700 from the start.
      const umask = process.umask(0o077);
      try {
        conf = new ConfClass<StoredCredentials>({
          ...(dir ? { cwd: dir } : { projectName: 'waitlist', projectSuffix: '' }),
          configName: 'credentials',
          configFileMode: 0o600,
          // A file that is not JSON reads as empty (nothing is written until login or signup saves over it).
          clearInvalidConfig: true,
        });
      } finally {
        process.umask(umask);
      }
    }
    return conf;
  };
  return {
    path: async () => (await open()).path,
    async read() {
      try {
        return sane((await open()).store);
      } catch {
        return {};
      }
    },
    async save(creds) {
      const c = await open();
      c.store = { server: normalizeServer(creds.server), session: creds.session, ...(creds.email ? { email: creds.email } : {}) };
      // conf applies the mode only when it creates the file; make sure of it either way.
      chmodSync(c.path, 0o600);
      try {
        chmodSync(dirname(c.path), 0o700);
      } catch {
        /* not ours to fix */
      }
    },
    async clearSession() {
      const c = await open();
      if (!existsSync(c.path)) return;
      c.delete('session');
      c.delete('email');
      chmodSync(c.path, 0o600);
    },
  };
}

/**
 * What a stored file holds when it is sound; a damaged one (not a JSON object, a `server` or `session`
 * that is not a string, a server that is not an http(s) URL) counts as absent, like an unreadable file:
 * the user is not logged in, and the next login or signup writes over it.
 */
function sane(stored: unknown): StoredCredentials {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return {};
  const { server, session, email } = stored as Record<string, unknown>;
  if (server !== undefined && (typeof server !== 'string' || serverUrlProblem(server))) return {};
  if (session !== undefined && typeof session !== 'string') return {};
  return {
    ...(server !== undefined ? { server } : {}),
    ...(session !== undefined ? { session } : {}),
    ...(typeof email === 'string' ? { email } : {}),
  };
}

/** Why `url` cannot be a server URL (not a URL, not http or https), or undefined when it can. */
export function serverUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return 'must be a URL such as http://127.0.0.1:8080';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http:// or https:// URL';
  return undefined;
}

export interface Credentials {
  server: string;
  session: string | undefined;
  /** Where the session came from, for messages. */
  source: 'env' | 'file' | 'none';
  /** The server a stored session belongs to, when it is not `server` (it is then not used). */
  otherServer?: string | undefined;
}

/** A server URL without trailing slashes; a usage error is the caller's business. */
export function normalizeServer(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

type Env = Record<string, string | undefined>;
const envValue = (env: Env, name: string) => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

/**
 * The server and session to use. `serverFlag` wins over WAITLIST_SERVER, which wins over the file.
 * A stored session is used only against the server it was issued by, so it never leaks elsewhere.
 */
export async function resolveCredentials(store: CredentialStore, env: Env, serverFlag?: string): Promise<Credentials> {
  const envServer = envValue(env, 'WAITLIST_SERVER');
  const envSession = envValue(env, 'WAITLIST_SESSION');
  if (serverFlag === undefined && envServer !== undefined) {
    // The same usage error as `--server not-a-url` (exit 2), rather than a failed request later.
    const problem = serverUrlProblem(envServer);
    if (problem) throw new CliError(`WAITLIST_SERVER ${problem}, not '${envServer}'`, EXIT.usage);
  }
  const explicit = serverFlag ?? envServer;
  if (explicit && envSession) return { server: normalizeServer(explicit), session: envSession, source: 'env' };
  const stored = await store.read();
  const server = normalizeServer(explicit ?? stored.server ?? DEFAULT_SERVER);
  if (envSession) return { server, session: envSession, source: 'env' };
  if (stored.session && stored.server) {
    if (normalizeServer(stored.server) === server) return { server, session: stored.session, source: 'file' };
    return { server, session: undefined, source: 'none', otherServer: normalizeServer(stored.server) };
  }
  return { server, session: undefined, source: 'none' };
}
