// An export's long reads give the event loop back between pages (betweenReads, src/db/store.ts), on the
// suite's database: on SQLite every read answers synchronously, and a loop of awaited reads ran as one
// block (a 200k-entry export held every other request for 1.6 s while it read the queue's positions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterateEntryChunks } from '../../src/core/entries.js';
import { QueuePositions } from '../../src/core/lifecycle.js';
import type { Store } from '../../src/db/index.js';
import { adapterFor } from '../store/adapters.js';
import { entry, projectWithKeyIn } from '../store/conformance.js';
import { DIALECT } from '../helpers/server.js';

let store: Store;
let dispose: () => Promise<void>;
let projectId = '';

beforeAll(async () => {
  ({ store, dispose } = await adapterFor(DIALECT).open());
  const { p } = await projectWithKeyIn(store);
  projectId = p.id;
  await store.importEntries(Array.from({ length: 2_000 }, () => entry(projectId)));
});
afterAll(async () => dispose?.());

/** How many times a timer got to run while `work` did its reads. */
async function turnsDuring(work: () => Promise<unknown>) {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  done = true;
  return turns;
}

describe(`long reads on ${DIALECT} give the event loop back`, () => {
  it("between the queue's pages read before an export", async () => {
    let read: QueuePositions | undefined;
    const turns = await turnsDuring(async () => (read = await QueuePositions.read(store, projectId, 100)));
    expect(read!.of({ ordinal: 1, k: Number.NaN })).toBeUndefined(); // the read happened (k never matches NaN)
    expect(turns).toBeGreaterThanOrEqual(19); // 20 pages of 100
  });

  it("between an export's chunks", async () => {
    let rows = 0;
    const turns = await turnsDuring(async () => {
      for await (const chunk of iterateEntryChunks(store, projectId, undefined, 100)) rows += chunk.length;
    });
    expect(rows).toBe(2_000);
    expect(turns).toBeGreaterThanOrEqual(19);
  });
});
