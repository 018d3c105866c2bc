// Readiness of the layers below the server, for GET /readyz.
import type { Store } from '../db/store.js';

/** Whether the database can serve reads and writes now: undefined when it can, else the reason. */
export const databaseReadiness = (store: Store) => async (): Promise<undefined> => {
  await store.ping();
};
