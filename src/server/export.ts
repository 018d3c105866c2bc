// Streaming export (json | ndjson | csv): rows are written as they are read, honouring backpressure,
// so memory stays flat however long the list.
import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { stringify } from 'csv-stringify/sync';
import type { ExportFormat } from '../contract/schemas.js';
import type { EntryRow } from '../db/store.js';
import { toEntry } from '../core/serialize.js';

const CSV_COLUMNS = ['entryId', 'email', 'name', 'source', 'metadata', 'ip', 'country', 'userAgent', 'createdAt', 'updatedAt'] as const;

const TYPES: Record<ExportFormat, string> = {
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

// Spreadsheet apps run cells starting with these as formulas; a leading ' keeps free-text cells as
// text. Emails and ids are left exact (a valid `+tag@x.com` must export unchanged; it cannot call a function).
const FORMULA_START = /^[=+\-@\t\r]/;
const EXACT = new Set(['entryId', 'email', 'createdAt', 'updatedAt', 'ip', 'country']);
const csvCell = (column: string, v: unknown) => {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return !EXACT.has(column) && FORMULA_START.test(s) ? `'${s}` : s;
};

function formatter(format: ExportFormat) {
  switch (format) {
    case 'ndjson':
      return { head: '', row: (e: object, _first: boolean) => `${JSON.stringify(e)}\n`, tail: '' };
    case 'json':
      return { head: '[', row: (e: object, first: boolean) => (first ? '\n' : ',\n') + JSON.stringify(e), tail: '\n]\n' };
    case 'csv':
      return {
        head: stringify([CSV_COLUMNS as unknown as string[]]),
        row: (e: object) => stringify([CSV_COLUMNS.map((c) => csvCell(c, (e as Record<string, unknown>)[c]))]),
        tail: '',
      };
  }
}

/** Streams every row of `rows` as a downloadable file. */
export async function streamExport(
  res: ServerResponse,
  slug: string,
  format: ExportFormat,
  rows: AsyncIterable<EntryRow>,
): Promise<void> {
  const f = formatter(format);
  const stamp = new Date().toISOString().slice(0, 10);
  res.writeHead(200, {
    'Content-Type': TYPES[format],
    'Content-Disposition': `attachment; filename="${slug}-entries-${stamp}.${format}"`,
  });
  let closed = false;
  res.on('close', () => (closed = true));
  let buf = f.head;
  let first = true;
  for await (const row of rows) {
    if (closed) return;
    buf += f.row(toEntry(row), first);
    first = false;
    if (buf.length >= 64 * 1024) {
      const ok = res.write(buf);
      buf = '';
      if (!ok) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    }
  }
  res.end(buf + f.tail);
}
