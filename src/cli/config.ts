// Where the CLI finds its server and session: flags, then WAITLIST_SERVER / WAITLIST_SESSION, then the
// credentials file (conf, mode 0600, in the user's config directory), then the default server.
// The file is opened only when needed, so CI with both env vars and no HOME never touches it.
import { chmodSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type Conf from 'conf';

export const DEFAULT_SERVER = 'http://127.0.0.1:8080';

export interface StoredCredentials {
  server?: string;
  session?: string;
  email?: string;
}

export interface Credentials {
  server: string;
  session: string | undefined;
  /** Where the session came from, for messages. */
  source: 'env' | 'file' | 'none';
}

let store: Conf<StoredCredentials> | undefined;

/** The credentials file (created on first write with mode 0600). */
export async function credentialsStore(): Promise<Conf<StoredCredentials>> {
  if (!store) {
    const { default: ConfClass } = await import('conf');
    store = new ConfClass<StoredCredentials>({
      projectName: 'waitlist',
      projectSuffix: '',
      configName: 'credentials',
      configFileMode: 0o600,
    });
  }
  return store;
}

/** The path of the credentials file (it may not exist yet). */
export async function credentialsPath(): Promise<string> {
  return (await credentialsStore()).path;
}

const envValue = (name: string) => {
  const v = process.env[name]?.trim();
  return v ? v : undefined;
};

/** A server URL without trailing slashes; a usage error is the caller's business. */
export function normalizeServer(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/** Reads the stored credentials; an unreadable or absent file counts as empty. */
async function readStored(): Promise<StoredCredentials> {
  try {
    return { ...(await credentialsStore()).store };
  } catch {
    return {};
  }
}

/**
 * The server and session to use. `serverFlag` wins over WAITLIST_SERVER, which wins over the file.
 * A stored session is used only against the server it was issued by, so it never leaks elsewhere.
 */
export async function resolveCredentials(serverFlag?: string): Promise<Credentials> {
  const envServer = envValue('WAITLIST_SERVER');
  const envSession = envValue('WAITLIST_SESSION');
  const explicit = serverFlag ?? envServer;
  if (explicit && envSession) return { server: normalizeServer(explicit), session: envSession, source: 'env' };
  const stored = await readStored();
  const server = normalizeServer(explicit ?? stored.server ?? DEFAULT_SERVER);
  if (envSession) return { server, session: envSession, source: 'env' };
  if (stored.session && stored.server && normalizeServer(stored.server) === server) {
    return { server, session: stored.session, source: 'file' };
  }
  return { server, session: undefined, source: 'none' };
}

/** Stores a server and session (file mode 0600, directory 0700). */
export async function saveCredentials(creds: Required<Pick<StoredCredentials, 'server' | 'session'>> & { email?: string }) {
  const conf = await credentialsStore();
  conf.store = { server: normalizeServer(creds.server), session: creds.session, ...(creds.email ? { email: creds.email } : {}) };
  // conf applies the mode only when it creates the file; make sure of it either way.
  chmodSync(conf.path, 0o600);
  try {
    chmodSync(dirname(conf.path), 0o700);
  } catch {
    /* not ours to fix */
  }
}

/** Forgets the stored session (the server URL is kept for the next login). */
export async function clearSession(): Promise<void> {
  const conf = await credentialsStore();
  if (!existsSync(conf.path)) return;
  conf.delete('session');
  conf.delete('email');
  chmodSync(conf.path, 0o600);
}
