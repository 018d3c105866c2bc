// An export's long reads give the event loop back between pages (betweenReads, src/db/store.ts), on the
// suite's database: on SQLite every read answers synchronously, and a loop of awaited reads ran as one
// block (a 200k-entry export held every other request for 1.6 s while it read the queue's positions).
// So does an import's parsing (src/core/import/run.ts): a file already waiting in the socket was read
// and parsed as one block of megabytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterateEntryChunks } from '../../src/core/entries.js';
import { importStream } from '../../src/core/import/run.js';
import { QueuePositions } from '../../src/core/lifecycle.js';
import type { Store } from '../../src/db/index.js';
import { adapterFor } from '../store/adapters.js';
import { entry, projectWithKeyIn } from '../store/conformance.js';
import { DIALECT } from '../helpers/server.js';
import { turnsDuring } from '../helpers/turns.js';

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

  it('every 1,000 rows of an import file already waiting to be read', async () => {
    const project = (await store.projectByIdAny(projectId))!;
    // The whole file at once, in 64 KiB chunks handed over without waiting: as a socket with megabytes
    // queued is read, chunk after chunk in one turn.
    const file = Buffer.from(`email\n${Array.from({ length: 20_000 }, (_, i) => `turns${i}@example.com\n`).join('')}`);
    async function* chunks() {
      for (let at = 0; at < file.length; at += 65_536) yield file.subarray(at, at + 65_536);
    }
    let imported = 0;
    const turns = await turnsDuring(async () => {
      ({ imported } = await importStream(store, project, chunks(), { format: 'csv', dryRun: true, dateFormat: 'auto' }));
    });
    expect(imported).toBe(20_000);
    expect(turns).toBeGreaterThanOrEqual(19);
  });
});
