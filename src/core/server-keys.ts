// Server-wide secret keys (HMAC keys), kept in the database's server_secrets table so every instance
// sharing it uses the same one: made by whichever instance needs it first, read once per process.
import { randomBytes } from 'node:crypto';
import type { Store } from '../db/store.js';

const keys = new WeakMap<Store, Map<string, Promise<string>>>();

/** The server-wide key named `name` (64 hex characters, 256 random bits), created on first use. */
export function serverKey(store: Store, name: string): Promise<string> {
  let byName = keys.get(store);
  if (!byName) {
    byName = new Map();
    keys.set(store, byName);
  }
  let k = byName.get(name);
  if (!k) {
    k = store.serverSecret(name, () => randomBytes(32).toString('hex'));
    k.catch(() => byName.delete(name)); // a database hiccup must not poison the cache
    byName.set(name, k);
  }
  return k;
}
