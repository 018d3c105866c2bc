// Record streams of an imported file, with the line each record starts on. Both readers cut the byte
// stream into whole records themselves before parsing, so one oversize record (a 10 MB line, or an
// unclosed quote that swallows the rest of the file) becomes one error and parsing goes on after it,
// and memory holds at most one record. Before that the bytes are decoded to UTF-8 (`decoded`): UTF-16
// with a BOM, UTF-8, or Windows-1252 when the file's first non-ASCII bytes are not UTF-8.
import { isAscii, isUtf8 } from 'node:buffer';
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

// Windows-1252's 0x80–0x9F (the rest of its bytes are Latin-1). Node 20's TextDecoder('windows-1252')
// decodes these as Latin-1's C1 controls (0x93 → U+0093, not “), so the table is here.
const CP1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1 = /[\x80-\x9f]/g;
/** Windows-1252 bytes as UTF-8 (every byte is a character: nothing is ever replaced). */
const fromCp1252 = (b: Buffer) =>
  Buffer.from(
    b.toString('latin1').replace(C1, (c) => CP1252_C1[c.charCodeAt(0) - 0x80]!),
    'utf8',
  );

/** The length of the valid UTF-8 sequence at b[i] (1 for ASCII), or 0 when it is not one (or is cut off). */
function utf8At(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (j: number, lo = 0x80, hi = 0xbf) => j < b.length && b[j]! >= lo && b[j]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

/** Where a sequence cut off by the end of `b` starts (b.length when the last sequence is whole). */
function wholeUpTo(b: Buffer): number {
  for (let j = b.length - 1; j >= 0 && j >= b.length - 3; j--) {
    const c = b[j]!;
    if (c < 0x80) return b.length;
    if (c >= 0xc0) return b.length - j < (c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2) ? j : b.length;
  }
  return b.length;
}

/**
 * The bytes of a file as UTF-8. A BOM says UTF-16 (LE or BE, transcoded) or UTF-8 (dropped). Otherwise
 * the first non-ASCII bytes decide, for the whole file (what came before is ASCII, the same in both):
 * valid UTF-8 → UTF-8; not → Windows-1252 (Excel's "CSV" on Windows, older tools), transcoded. Bytes that
 * are not UTF-8 later in a file read as UTF-8 are passed on as they are and their offsets (in the
 * output) given to `invalid`, so the rows holding them are reported, never stored with U+FFFD.
 */
export async function* decoded(source: AsyncIterable<Buffer>, invalid: (offset: number) => void): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  // The first 3 bytes, for the BOM.
  let head: Buffer = Buffer.alloc(0);
  let done = false;
  while (head.length < 3) {
    const n = await it.next();
    if (n.done) {
      done = true;
      break;
    }
    head = head.length ? Buffer.concat([head, n.value]) : n.value;
  }
  const rest = async function* () {
    if (head.length) yield head;
    if (done) return;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  };
  const utf16 = head[0] === 0xff && head[1] === 0xfe ? 'utf-16le' : head[0] === 0xfe && head[1] === 0xff ? 'utf-16be' : null;
  if (utf16) {
    const dec = new TextDecoder(utf16); // drops the BOM
    for await (const chunk of rest()) {
      const s = dec.decode(chunk, { stream: true });
      if (s) yield Buffer.from(s, 'utf8');
    }
    const s = dec.decode();
    if (s) yield Buffer.from(s, 'utf8');
    return;
  }
  let mode: 'ascii' | 'utf-8' | 'windows-1252' = 'ascii'; // ascii: no non-ASCII byte yet, undecided
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) {
    head = head.subarray(3);
    mode = 'utf-8';
  }
  let offset = 0; // of the next output byte
  let pending: Buffer | undefined; // a sequence cut off by the end of the last chunk
  const out = function* (buf: Buffer, last: boolean): Generator<Buffer> {
    if (mode === 'windows-1252') {
      pending = undefined;
      if (buf.length) yield fromCp1252(buf);
      return;
    }
    const cut = last ? buf.length : wholeUpTo(buf);
    pending = cut < buf.length ? Buffer.from(buf.subarray(cut)) : undefined;
    const body = buf.subarray(0, cut);
    if (isUtf8(body)) {
      if (mode === 'ascii' && !isAscii(body)) mode = 'utf-8';
    } else {
      let i = 0;
      if (mode === 'ascii') {
        while (body[i]! < 0x80) i++;
        if (!utf8At(body, i)) {
          mode = 'windows-1252';
          yield fromCp1252(body);
          return;
        }
        mode = 'utf-8';
      }
      while (i < body.length) {
        const n = utf8At(body, i);
        if (n) i += n;
        else invalid(offset + i++);
      }
    }
    offset += body.length;
    if (body.length) yield body;
  };
  for await (const chunk of rest()) yield* out(pending ? Buffer.concat([pending, chunk]) : chunk, false);
  if (pending) yield* out(pending, true);
}

// Where a CSV scan stands: at the start of a field (a quote there opens a quoted field), inside an
// unquoted field (a quote there is an ordinary character, as csv-parse's relax_quotes reads it), inside
// quotes, or just after a quote inside quotes (a second quote is an escaped one; anything else ends the
// quotes, and the field goes on unquoted if it is not a delimiter or newline, as csv-parse does).
const START = 0;
const FIELD = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const TAB = 0x09;

/**
 * The CSV scan's state after byte `c` when quotes decide it (inside quotes, or a quote), else -1: `c` is
 * outside quotes and not a quote (a delimiter, a newline or field text), for the caller to read.
 */
function quoteStep(state: number, c: number): number {
  if (state === QUOTE_IN_QUOTED) {
    if (c === QUOTE) return QUOTED; // an escaped quote
    state = FIELD; // the quotes ended: `c` is read outside them
  }
  if (state === QUOTED) return c === QUOTE ? QUOTE_IN_QUOTED : QUOTED;
  if (c === QUOTE) return state === START ? QUOTED : FIELD;
  return -1;
}

/**
 * Whole records (ending in a newline outside quotes) of a byte stream; an oversize record is replaced
 * by as many bare newlines as it spanned (so later line numbers hold) and reported through `oversize`.
 * For CSV, quotes are read as csv-parse reads them: the delimiter is any of `,` `;` tab until the header
 * row is whole, then the one `first` (given the header row) returns. `marks` holds the stream offsets of
 * bytes that are not UTF-8 (from `decoded`, ascending); the line of each is given to `badLine`.
 */
async function* wholeRecords(
  source: AsyncIterable<Buffer>,
  csv: boolean,
  oversize: (line: number, lines: number) => void,
  first: (b: Buffer) => number,
  marks: number[],
  badLine: (line: number) => void,
) {
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let state = START;
  let delimiter = -1; // -1: any of , ; tab (the header row)
  let line = 1; // line of the next byte
  let recStart = 1;
  let skipping = false;
  let sawFirst = false;
  let offset = 0; // of this chunk in the stream
  let marked = 0; // marks already placed
  for await (const chunk of source) {
    const chunkLine = line;
    let from = 0; // start of the not-yet-emitted part of this chunk
    let boundary = -1; // just after the last newline outside quotes
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (csv) {
        const q = quoteStep(state, c);
        if (q >= 0) {
          if (q === QUOTED && c === LF) line++; // a newline inside quotes
          state = q;
          continue;
        }
        if (delimiter < 0 ? c === COMMA || c === SEMICOLON || c === TAB : c === delimiter) {
          state = START;
          continue;
        }
        if (c !== LF) {
          state = FIELD;
          continue;
        }
        state = START;
      } else if (c !== LF) continue;
      // A newline outside quotes: the end of a record.
      line++;
      if (skipping) {
        oversize(recStart, line - recStart);
        skipping = false;
        yield Buffer.from('\n'.repeat(line - recStart));
        from = i + 1;
      } else if (!sawFirst) {
        sawFirst = true;
        delimiter = first(Buffer.concat([...carry, chunk.subarray(from, i + 1)]));
      }
      recStart = line;
      boundary = i + 1;
    }
    // The lines of bytes that are not UTF-8 in this chunk.
    let at = 0;
    let atLine = chunkLine;
    while (marked < marks.length && marks[marked]! < offset + chunk.length) {
      const to = marks[marked++]! - offset;
      for (let j = chunk.indexOf(LF, at); j >= 0 && j < to; j = chunk.indexOf(LF, at)) {
        atLine++;
        at = j + 1;
      }
      badLine(atLine);
    }
    if (marked === marks.length) {
      marks.length = 0;
      marked = 0;
    }
    offset += chunk.length;
    // Emit everything up to the last record boundary in this chunk; carry the rest.
    if (skipping) continue;
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
  if (csv && state === QUOTED && (skipping || carryBytes)) oversize(recStart, 0);
  else if (skipping) oversize(recStart, line - recStart + 1);
  else if (carryBytes) {
    const tail = Buffer.concat(carry);
    if (!sawFirst) first(tail);
    yield tail;
  }
}

/** The delimiter of a header row: the most frequent of `,` `;` and tab outside quotes. */
export function sniffDelimiter(head: Buffer): string {
  const counts = new Map<number, number>([
    [COMMA, 0],
    [SEMICOLON, 0],
    [TAB, 0],
  ]);
  let state = START;
  for (const c of head) {
    const q = quoteStep(state, c);
    if (q >= 0) state = q;
    else if (counts.has(c)) {
      counts.set(c, counts.get(c)! + 1);
      state = START;
    } else state = c === LF ? START : FIELD;
  }
  let best = COMMA;
  for (const [c, n] of counts) if (n > counts.get(best)!) best = c;
  return String.fromCharCode(best);
}

const tooLong = (lines: number) =>
  lines
    ? `Record longer than ${MAX_RECORD_BYTES / 1024 / 1024} MiB: skipped`
    : 'A quote opened here is never closed: the rest of the file could not be read';

const NOT_UTF8 =
  'Not UTF-8: the file is read as UTF-8 (its first non-ASCII characters are), but this row holds bytes that are not; not imported (save the file as UTF-8)';

/** The lines holding bytes that are not UTF-8, as `decoded` and `wholeRecords` find them. */
function badLines() {
  const marks: number[] = [];
  const lines: number[] = [];
  return {
    marks,
    mark: (offset: number) => void marks.push(offset),
    add: (line: number) => {
      if (lines[lines.length - 1] !== line) lines.push(line);
    },
    /** True when a record of lines from..to holds one (lines before `from` are forgotten). */
    within(from: number, to: number) {
      let i = 0;
      while (i < lines.length && lines[i]! < from) i++;
      if (i) lines.splice(0, i);
      return lines.length > 0 && lines[0]! <= to;
    },
  };
}

/** CSV records (the header first), from a stream that may start with a BOM and use `,`, `;` or tab. */
export async function* csvRecords(source: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  const errors: RawRecord[] = [];
  const bad = badLines();
  let delimiter = ',';
  const cleaned = wholeRecords(
    decoded(source, bad.mark),
    true,
    (line, lines) => errors.push({ line, error: tooLong(lines) }),
    (head) => {
      delimiter = sniffDelimiter(head);
      return delimiter.charCodeAt(0);
    },
    bad.marks,
    bad.add,
  );
  // The parser is created lazily, once the header (and so the delimiter) is known.
  const first = await cleaned.next();
  if (first.done) return;
  const parser = parse({
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
  const input = Readable.from(
    (async function* () {
      yield first.value;
      yield* cleaned;
    })(),
  );
  // pipe() does not pass errors on: a body cut off (the client gone, the request timeout) fails the
  // source, and unhandled there it ended the process. The parser carries it to the loop below instead.
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  let header = true;
  // csv-parse counts every CR inside quotes as a line of its own, a quoted CRLF as two: its `lines` runs
  // ahead of the file's lines by the CRs read so far in quoted values (lines here are counted by LF).
  let quotedCrs = 0;
  const count = (v: string, c: string) => {
    let n = 0;
    for (let i = v.indexOf(c); i >= 0; i = v.indexOf(c, i + 1)) n++;
    return n;
  };
  for await (const r of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    while (errors.length) yield errors.shift()!;
    let inner = 0;
    for (const v of r.record) {
      inner += count(v, '\n');
      quotedCrs += count(v, '\r');
    }
    const end = r.info.lines - quotedCrs;
    const line = end - inner;
    // The header row is the header whatever it holds.
    if (bad.within(line, end) && !header) yield { line, error: NOT_UTF8 };
    else yield { line, values: r.record };
    header = false;
  }
  while (errors.length) yield errors.shift()!;
}

/** NDJSON records: one JSON object a line (blank lines skipped). */
export async function* ndjsonRecords(source: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  const errors: RawRecord[] = [];
  const bad = badLines();
  let line = 0;
  let rest = '';
  const cleaned = wholeRecords(
    decoded(source, bad.mark),
    false,
    (l, lines) => errors.push({ line: l, error: tooLong(lines) }),
    () => -1,
    bad.marks,
    bad.add,
  );
  const record = (at: number, s: string): RawRecord => (bad.within(at, at) ? { line: at, error: NOT_UTF8 } : objectRecord(at, s));
  for await (const chunk of cleaned) {
    const text = rest + chunk.toString('utf8');
    const parts = text.split('\n');
    rest = parts.pop()!;
    for (const part of parts) {
      line++;
      while (errors.length && errors[0]!.line <= line) yield errors.shift()!;
      const s = part.trim();
      if (!s) continue;
      yield record(line, s);
    }
  }
  while (errors.length) yield errors.shift()!;
  if (rest.trim()) yield record(line + 1, rest.trim());
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
