// Server-wide secret keys (HMAC keys), kept in the database's server_secrets table so every instance
// sharing it uses the same one: made by whichever instance needs it first, read once per process.
// With an operator secret (WAITLIST_SECRET), a key is HMAC(secret, name:stored value): a copy of the
// database alone then derives no subscriber link, and the secret alone derives nothing either.
import { createHmac, randomBytes } from 'node:crypto';
import type { Store } from '../db/store.js';

const keys = new WeakMap<Store, Map<string, Promise<string>>>();
const secrets = new WeakMap<Store, string>();

/** Mixes the operator's secret into every server key of `store`; call before the first key is read. */
export function useServerSecret(store: Store, secret: string): void {
  if (keys.get(store)?.size) throw new Error('useServerSecret: a server key was already read');
  secrets.set(store, secret);
}

/** The server-wide key named `name` (64 hex characters, 256 bits), created on first use. */
export function serverKey(store: Store, name: string): Promise<string> {
  let byName = keys.get(store);
  if (!byName) {
    byName = new Map();
    keys.set(store, byName);
  }
  let k = byName.get(name);
  if (!k) {
    const secret = secrets.get(store);
    const stored = store.serverSecret(name, () => randomBytes(32).toString('hex'));
    k = secret ? stored.then((v) => createHmac('sha256', secret).update(`${name}:${v}`).digest('hex')) : stored;
    k.catch(() => byName.delete(name)); // a database hiccup must not poison the cache
    byName.set(name, k);
  }
  return k;
}
