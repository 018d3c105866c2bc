// Record streams of an imported file, with the line each record starts on. Both readers cut the byte
// stream into whole records themselves before parsing, so one oversize record (a 10 MB line, or an
// unclosed quote that swallows the rest of the file) becomes one error and parsing goes on after it,
// and memory holds at most one record.
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';

/** The longest record accepted, in bytes. */
export const MAX_RECORD_BYTES = 1024 * 1024;

export interface RawRecord {
  line: number;
  values?: string[];
  object?: Record<string, unknown>;
  error?: string;
}

const QUOTE = 0x22;
const LF = 0x0a;

/**
 * Whole records (ending in a newline outside quotes) of a byte stream; an oversize record is replaced
 * by as many bare newlines as it spanned (so later line numbers hold) and reported through `oversize`.
 */
async function* wholeRecords(
  source: AsyncIterable<Buffer>,
  quotes: boolean,
  oversize: (line: number, lines: number) => void,
  first: (b: Buffer) => void,
) {
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let inQuotes = false;
  let line = 1; // line of the next byte
  let recStart = 1;
  let skipping = false;
  let sawFirst = false;
  for await (const chunk of source) {
    let from = 0; // start of the not-yet-emitted part of this chunk
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (quotes && c === QUOTE) inQuotes = !inQuotes;
      else if (c === LF) {
        line++;
        if (!inQuotes) {
          if (skipping) {
            oversize(recStart, line - recStart);
            skipping = false;
            yield Buffer.from('\n'.repeat(line - recStart));
            from = i + 1;
          } else if (!sawFirst) {
            const head = Buffer.concat([...carry, chunk.subarray(from, i + 1)]);
            sawFirst = true;
            first(head);
          }
          recStart = line;
        }
      }
    }
    // Emit everything up to the last record boundary in this chunk; carry the rest.
    if (skipping) continue;
    const boundary = lastBoundary(chunk, from, quotes, inQuotes);
    if (boundary >= from) {
      const out = carry.length ? Buffer.concat([...carry, chunk.subarray(from, boundary)]) : chunk.subarray(from, boundary);
      carry = [];
      carryBytes = 0;
      if (out.length) yield out;
      from = boundary;
    }
    carry.push(chunk.subarray(from));
    carryBytes += chunk.length - from;
    if (carryBytes > MAX_RECORD_BYTES) {
      skipping = true;
      carry = [];
      carryBytes = 0;
    }
  }
  if (skipping || (quotes && inQuotes && carryBytes)) oversize(recStart, 0);
  else if (carryBytes) {
    const tail = Buffer.concat(carry);
    if (!sawFirst) first(tail);
    yield tail;
  }
}

/** Index just after the last newline outside quotes in chunk[from..], or -1 (`inQuotesAtEnd` is the state after the chunk). */
function lastBoundary(chunk: Buffer, from: number, quotes: boolean, inQuotesAtEnd: boolean): number {
  if (!quotes) {
    const i = chunk.lastIndexOf(LF);
    return i >= from ? i + 1 : -1;
  }
  // Walk back from the end: the quote state at position i is known from the end state and the quotes after i.
  let state = inQuotesAtEnd;
  for (let i = chunk.length - 1; i >= from; i--) {
    const c = chunk[i]!;
    if (c === QUOTE) state = !state;
    else if (c === LF && !state) return i + 1;
  }
  return -1;
}

/** The delimiter of a header row: the most frequent of `,` `;` and tab outside quotes. */
export function sniffDelimiter(head: Buffer): string {
  const counts = new Map<number, number>([
    [0x2c, 0],
    [0x3b, 0],
    [0x09, 0],
  ]);
  let q = false;
  for (const c of head) {
    if (c === QUOTE) q = !q;
    else if (!q && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best = 0x2c;
  for (const [c, n] of counts) if (n > counts.get(best)!) best = c;
  return String.fromCharCode(best);
}

const tooLong = (lines: number) =>
  lines
    ? `Record longer than ${MAX_RECORD_BYTES / 1024 / 1024} MiB: skipped`
    : 'A quote opened here is never closed: the rest of the file could not be read';

/** CSV records (the header first), from a stream that may start with a BOM and use `,`, `;` or tab. */
export async function* csvRecords(source: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  const errors: RawRecord[] = [];
  let delimiter = ',';
  const cleaned = wholeRecords(
    source,
    true,
    (line, lines) => errors.push({ line, error: tooLong(lines) }),
    (head) => {
      delimiter = sniffDelimiter(head);
    },
  );
  // The parser is created lazily, once the header (and so the delimiter) is known.
  const first = await cleaned.next();
  if (first.done) return;
  const parser = parse({
    bom: true,
    delimiter,
    info: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
  });
  parser.on('skip', (err: Error & { lines?: number }) =>
    errors.push({ line: err.lines ?? 0, error: `Not readable as CSV: ${err.message.replace(/^[^:]*: /, '')}` }),
  );
  Readable.from(
    (async function* () {
      yield first.value;
      yield* cleaned;
    })(),
  ).pipe(parser);
  for await (const r of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    while (errors.length) yield errors.shift()!;
    let inner = 0;
    for (const v of r.record) for (let i = v.indexOf('\n'); i >= 0; i = v.indexOf('\n', i + 1)) inner++;
    yield { line: r.info.lines - inner, values: r.record };
  }
  while (errors.length) yield errors.shift()!;
}

/** NDJSON records: one JSON object a line (blank lines skipped). */
export async function* ndjsonRecords(source: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  const errors: RawRecord[] = [];
  let line = 0;
  let rest = '';
  const cleaned = wholeRecords(
    source,
    false,
    (l, lines) => errors.push({ line: l, error: tooLong(lines) }),
    () => undefined,
  );
  for await (const chunk of cleaned) {
    const text = rest + chunk.toString('utf8');
    const parts = text.split('\n');
    rest = parts.pop()!;
    for (const part of parts) {
      line++;
      while (errors.length && errors[0]!.line <= line) yield errors.shift()!;
      const s = part.trim();
      if (!s) continue;
      yield objectRecord(line, s);
    }
  }
  while (errors.length) yield errors.shift()!;
  if (rest.trim()) yield objectRecord(line + 1, rest.trim());
}

function objectRecord(line: number, s: string): RawRecord {
  try {
    const v: unknown = JSON.parse(s.charCodeAt(0) === 0xfeff ? s.slice(1) : s);
    if (v && typeof v === 'object' && !Array.isArray(v)) return { line, object: v as Record<string, unknown> };
    return { line, error: 'Each line must be a JSON object' };
  } catch {
    return { line, error: 'Not valid JSON' };
  }
}
