// Import: a CSV or NDJSON stream → entries, in batches, with flat memory. Rows whose email is already
// on the list (or earlier in the file) are skipped and counted; bad rows are reported by line and the
// good ones kept. Imported rows send no email and no webhook: they are written by Store.importEntries,
// not by the join path. A dry run reads and checks everything and writes nothing.
import type { ProjectRow, Store, EntryRow } from '../../db/store.js';
import { AppError } from '../errors.js';
import { featureSettings } from '../settings.js';
import { mapHeader, type Target } from './columns.js';
import { type DateFormat, type SlashOrder, slashOrders } from './dates.js';
import { csvRecords, ndjsonRecords, type RawRecord } from './reader.js';
import { pick, toRow, type Picked } from './rows.js';

export const IMPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const MAX_REPORTED = 100;
/**
 * Rows a transaction (one fsync) at a time; also the window sorted by createdAt. Each batch has a fixed
 * cost (a new FTS5 segment to merge later, the bulk statements' trigger swap, a commit of every page it
 * dirtied, and a random-key index dirties nearly one page per row in small batches), so on a quiet machine
 * 1M CSV rows took 127 s in batches of 1,000, 68 s of 4,000, 63 s of 6,000 and 55-57 s of 8,000, with
 * the server's RSS growing 115, 181, 187 and 196-199 MB (`node bench/surface.mjs --full --import-only`).
 * (Measured while a batch's counters still walked a whole index, 0.1 s per batch at 1M entries: see
 * surface.ts.) The price: on SQLite a batch holds the event loop for its insert, about 90 ms at 1M
 * entries, so requests arriving meanwhile wait that long.
 */
export const BATCH = 8000;
/**
 * Records read between two turns of the event loop. A socket with a large file waiting is read up to 32
 * times per turn (libuv), and each chunk read was parsed before the next: 2 MB of rows, about eight
 * batches, held every other request for 1.7-2.3 s. A turn every 1,000 rows (a few ms of parsing) lets
 * the socket's backpressure stop the reads until the import has caught up.
 */
const TURN_ROWS = 1000;
/** Records held back while an `auto` date format is still unsettled. */
const MAX_HELD = 10_000;

export interface ImportOptions {
  format: ImportFormat;
  dryRun: boolean;
  dateFormat: DateFormat;
}

export interface ImportResult {
  imported: number;
  duplicates: number;
  /** The first 100 bad rows. */
  invalid: { line: number; message: string }[];
  /** How many rows were bad in all. */
  invalidCount: number;
  dryRun: boolean;
  /** The order slash dates were read in (null: the file had none, or none could be settled). */
  dateFormat: SlashOrder | null;
}

interface Held {
  line: number;
  picked: Picked;
}

/** Imports `source` into the project. 400 when the file cannot be imported at all (no email column). */
export async function importStream(
  store: Store,
  project: ProjectRow,
  source: AsyncIterable<Buffer>,
  opts: ImportOptions,
): Promise<ImportResult> {
  const defs = featureSettings(project).fields;
  const now = Date.now();
  const result: ImportResult = { imported: 0, duplicates: 0, invalid: [], invalidCount: 0, dryRun: opts.dryRun, dateFormat: null };
  let order: SlashOrder | null = opts.dateFormat === 'auto' ? null : opts.dateFormat;
  if (order) result.dateFormat = order;
  const bad = (line: number, message: string) => {
    result.invalidCount++;
    if (result.invalid.length < MAX_REPORTED) result.invalid.push({ line, message });
  };
  let batch: EntryRow[] = [];
  const seen = opts.dryRun ? new Set<string>() : null; // a dry run finds in-file duplicates itself
  // The ordinals the batches took (merged when consecutive) and whether a batch came in with a date
  // before one of an earlier batch: then the rows are put in date order at the end (orderImported).
  const ranges: [number, number][] = [];
  let latest = Number.NEGATIVE_INFINITY;
  let disordered = false;
  const flush = async () => {
    if (!batch.length) return;
    // Of one email repeated within the batch the first line is kept (earlier batches were written
    // first, so across batches too); then queue places (join ordinals) are given in createdAt order.
    const firsts = new Map<string, EntryRow>();
    for (const r of batch) if (!firsts.has(r.emailNorm)) firsts.set(r.emailNorm, r);
    result.duplicates += batch.length - firsts.size;
    const rows = [...firsts.values()].sort((a, b) => a.createdAt - b.createdAt);
    batch = [];
    if (!seen) {
      const { inserted, first } = await store.importEntries(rows);
      result.imported += inserted;
      result.duplicates += rows.length - inserted;
      if (!inserted) return;
      const prev = ranges[ranges.length - 1];
      if (prev && prev[1] + 1 === first) prev[1] = first + inserted - 1;
      else ranges.push([first, first + inserted - 1]);
      if (rows[0]!.createdAt < latest) disordered = true;
      latest = Math.max(latest, rows[rows.length - 1]!.createdAt);
      return;
    }
    const existing = new Set(
      await store.liveEmailNorms(
        project.id,
        rows.map((r) => r.emailNorm),
      ),
    );
    for (const r of rows) {
      if (existing.has(r.emailNorm) || seen.has(r.emailNorm)) result.duplicates++;
      else {
        seen.add(r.emailNorm);
        result.imported++;
      }
    }
  };
  const convert = async (h: Held) => {
    const r = toRow(project.id, h.picked, defs, order, now, h.line);
    if ('error' in r) return bad(h.line, r.error);
    batch.push(r.row);
    if (batch.length >= BATCH) await flush();
  };

  let held: Held[] = []; // records waiting for an `auto` date order to be settled
  let ambiguous = false;
  const release = async () => {
    const list = held;
    held = [];
    ambiguous = false;
    for (const h of list) await convert(h);
  };

  let targets: Target[] | undefined;
  const objectTargets = new Map<string, Target[]>();
  const records: AsyncIterable<RawRecord> = opts.format === 'csv' ? csvRecords(source) : ndjsonRecords(source);
  let sinceTurn = 0;
  for await (const rec of records) {
    if (++sinceTurn === TURN_ROWS) {
      sinceTurn = 0;
      await new Promise<void>((r) => setImmediate(r));
    }
    if (rec.error !== undefined) {
      bad(rec.line, rec.error);
      continue;
    }
    let picked: Picked;
    if (rec.values) {
      if (!targets) {
        targets = mapHeader(rec.values, defs);
        if (!targets.some((t) => t.kind === 'email')) throw noEmailColumn(rec.values);
        continue;
      }
      picked = pick(targets, rec.values);
    } else {
      const obj = rec.object!;
      const keys = Object.keys(obj);
      const sig = keys.join('\u0000');
      let t = objectTargets.get(sig);
      if (!t) {
        t = mapHeader(keys, defs);
        if (objectTargets.size > 1000) objectTargets.clear();
        objectTargets.set(sig, t);
      }
      picked = pick(
        t,
        keys.map((k) => obj[k]),
      );
    }
    if (!order && typeof picked.createdAt === 'string') {
      const orders = slashOrders(picked.createdAt);
      if (orders?.length === 1) {
        order = orders[0]!;
        result.dateFormat = order;
      } else if (orders?.length === 2) ambiguous = true;
    }
    const h = { line: rec.line, picked };
    if (order || (!ambiguous && !held.length)) {
      if (held.length) await release();
      await convert(h);
    } else {
      held.push(h);
      if (held.length >= MAX_HELD) await release(); // still ambiguous: those rows are reported, not guessed
    }
  }
  if (!targets && opts.format === 'csv')
    throw new AppError('validation_failed', 'Validation failed', [{ path: 'file', message: 'The file is empty' }]);
  await release();
  await flush();
  // A file longer than a batch and not in date order (an export newest first, say): each batch was
  // numbered in date order by itself, so the whole import is put in date order now.
  if (disordered) await store.lifecycle.orderImported(project.id, ranges);
  result.invalid.sort((a, b) => a.line - b.line);
  return result;
}

function noEmailColumn(header: readonly string[]) {
  const shown = header
    .slice(0, 20)
    .map((h) => JSON.stringify(h))
    .join(', ');
  return new AppError('validation_failed', 'The file has no email column', [
    { path: 'email', message: `No email column: the header row must name one (email, e-mail, email address); found ${shown || 'nothing'}` },
  ]);
}
