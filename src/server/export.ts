// Streaming export (json | ndjson | csv): rows are written as they are read, honouring backpressure,
// so memory stays flat however long the list.
import type { ServerResponse } from 'node:http';
import { stringify } from 'csv-stringify/sync';
import type { ExportFormat } from '../contract/schemas.js';
import type { ExportRow } from '../core/lifecycle.js';
import { entryJson, iso } from '../core/serialize.js';

/**
 * The management API's entry fields in the contract's order, except the custom `fields` map: the
 * CSV export's columns, and (without name and metadata) the fields an entry update may not set.
 */
export const ENTRY_COLUMNS = [
  'entryId',
  'email',
  'name',
  'source',
  'metadata',
  'ip',
  'country',
  'userAgent',
  'createdAt',
  'updatedAt',
  'status',
  'position',
  'referralCode',
  'referredBy',
  'referrals',
  'confirmedAt',
  'invitedAt',
  'acceptedAt',
] as const;

const TYPES: Record<ExportFormat, string> = {
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

// CSV injection (OWASP "CSV Injection"): spreadsheet apps run a cell that starts with = + - @ tab or
// CR as a formula. Every field, emails and ids included, gets a leading ' when it starts with one of
// these, and every cell is quoted, so a separator inside a value (`x;=cmd|…`) never starts a new cell
// in an app that splits on `;`. The ' shows in the cell: an email `+tag@x.com` exports as `'+tag@x.com`.
const FORMULA_START = /^[=+\-@\t\r]/;
export const csvCell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return FORMULA_START.test(s) ? `'${s}` : s;
};
const CSV_OPTIONS = { quoted: true, quoted_empty: true } as const;
/** One quoted CSV cell, as csv-stringify writes it with CSV_OPTIONS: `"` doubled inside quotes. */
const q = (s: string) => `"${s.includes('"') ? s.replaceAll('"', '""') : s}"`;
/** A text cell with neither a formula start nor a quote (most of them) is quoted as it is, in one test. */
const CSV_PLAIN = /^(?![=+\-@\t\r])[^"]*$/;
const csvText = (v: string | null) => (v === null ? '""' : CSV_PLAIN.test(v) ? `"${v}"` : q(csvCell(v)));
// A time from year 1970 to 9999 starts with a digit and holds no quote: nothing to neutralise or escape.
const csvTime = (ms: number | null) => (ms === null ? '""' : ms >= 0 && ms < 253_402_300_800_000 ? `"${iso(ms)}"` : csvText(iso(ms)));

/**
 * stringify([[...ENTRY_COLUMNS, fields.<key>…].map(csvCell)], CSV_OPTIONS) of toEntry(row) without
 * building the entry object or parsing its metadata (stored as JSON.stringify output, so it is the
 * cell as it is): about 4x faster, which is seconds per million rows.
 */
export function entryCsv(e: ExportRow, fieldKeys: readonly string[]): string {
  let line =
    `${csvText(e.id)},${csvText(e.email)},${csvText(e.name)},${csvText(e.source)},${csvText(e.metadata)},` +
    `${csvText(e.ip)},${csvText(e.country)},${csvText(e.userAgent)},${csvTime(e.createdAt)},${csvTime(e.updatedAt)},` +
    `${csvText(e.status)},"${e.status === 'waiting' ? (e.position ?? '') : ''}",${csvText(e.referralCode)},` +
    `${csvText(e.referredBy)},${e.referrals >= 0 ? `"${e.referrals}"` : q(csvCell(e.referrals))},${csvTime(e.confirmedAt)},${csvTime(e.invitedAt)},${csvTime(e.acceptedAt)}`;
  if (fieldKeys.length) {
    const answers = JSON.parse(e.fields ?? '{}') as Record<string, unknown>;
    for (const k of fieldKeys) line += `,${q(csvCell(Object.hasOwn(answers, k) ? answers[k] : null))}`;
  }
  return `${line}\n`;
}

function formatter(format: ExportFormat, fieldKeys: readonly string[]) {
  switch (format) {
    case 'ndjson':
      return { head: '', row: (e: ExportRow, _first: boolean) => `${entryJson(e)}\n`, tail: '' };
    case 'json':
      return { head: '[', row: (e: ExportRow, first: boolean) => (first ? '\n' : ',\n') + entryJson(e), tail: '\n]\n' };
    case 'csv':
      return {
        // One column per custom field (the project's current definitions), `fields.<key>`.
        head: stringify([[...ENTRY_COLUMNS, ...fieldKeys.map((k) => `fields.${k}`)]], CSV_OPTIONS),
        row: (e: ExportRow) => entryCsv(e, fieldKeys),
        tail: '',
      };
  }
}

/** Waits for 'drain' or 'close', removing both listeners (Promise.race of once() would leak one per wait). */
function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

// Writes of ~256 KiB: fewer chunks (and chunked-encoding frames and syscalls) than 64 KiB, still small
// next to the socket's buffer; after a chunk of rows whose writes filled it, the export waits for 'drain'.
const WRITE_SIZE = 256 * 1024;

/** Streams every row of `chunks` as a downloadable file. */
export async function streamExport(
  res: ServerResponse,
  slug: string,
  format: ExportFormat,
  chunks: AsyncIterable<ExportRow[]>,
  fieldKeys: readonly string[] = [],
): Promise<void> {
  const f = formatter(format, fieldKeys);
  const stamp = new Date().toISOString().slice(0, 10);
  res.writeHead(200, {
    'Content-Type': TYPES[format],
    'Content-Disposition': `attachment; filename="${slug}-entries-${stamp}.${format}"`,
  });
  let closed = false;
  res.on('close', () => (closed = true));
  // Rows are encoded straight into a buffer of WRITE_SIZE bytes, sent when the next row may not fit:
  // no string of 256 KiB built by concatenation (flattening that, then measuring and encoding it again
  // in the socket's write, was a fifth of a large export's time). A buffer goes back to `spare` once
  // the socket has written it, so an export cycles through a few of them instead of leaving hundreds of
  // megabytes of spent buffers for the garbage collector.
  const spare: Buffer[] = [];
  const take = (size: number) => (size <= WRITE_SIZE ? (spare.pop() ?? Buffer.allocUnsafe(WRITE_SIZE)) : Buffer.allocUnsafe(size));
  const send = (buf: Buffer, n: number) =>
    res.write(buf.subarray(0, n), (err) => {
      if (!err && buf.length === WRITE_SIZE && spare.length < 4) spare.push(buf);
    });
  let out = take(f.head.length * 3);
  let at = out.write(f.head);
  let first = true;
  for await (const rows of chunks) {
    if (closed) return;
    let full = false;
    for (const row of rows) {
      const line = f.row(row, first);
      first = false;
      if (line.length * 3 > out.length - at) {
        // A UTF-16 code unit is at most 3 bytes of UTF-8; a longer row gets a buffer of its own size.
        if (!send(out, at)) full = true;
        out = take(line.length * 3);
        at = 0;
      }
      at += out.write(line, at);
    }
    if (full) await drainOrClose(res); // the socket's buffer is full: wait before the next chunk
  }
  send(out, at);
  res.end(f.tail);
}
