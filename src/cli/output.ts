// Output that knows where it goes: a table on a terminal, tab-separated rows when stdout is a pipe or
// a file, exact JSON with --json. Data goes to stdout, messages to stderr; colour only on a terminal
// and never with NO_COLOR. WAITLIST_FORCE_TTY=1 makes stdout count as a terminal (tests, `script`).
import Table from 'cli-table3';
import { createColors } from 'picocolors';

export type Mode = 'table' | 'tsv' | 'json';

/** One column of a list: header, how to read a cell, how to show it in a table (defaults to raw). */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  pretty?: (row: T) => string;
}

export interface OutputOptions {
  json?: boolean | undefined;
  stdoutTty?: boolean;
  stderrTty?: boolean;
  noColor?: boolean;
}

type Colors = ReturnType<typeof createColors>;

const envSet = (name: string) => Boolean(process.env[name]);

/** Decides the mode and colours once per command from flags, TTYs and the environment. */
export class Output {
  readonly mode: Mode;
  readonly color: Colors;
  readonly errColor: Colors;
  readonly stderrTty: boolean;

  constructor(
    opts: OutputOptions = {},
    readonly out: NodeJS.WritableStream = process.stdout,
    readonly err: NodeJS.WritableStream = process.stderr,
  ) {
    const stdoutTty = opts.stdoutTty ?? (Boolean(process.stdout.isTTY) || envSet('WAITLIST_FORCE_TTY'));
    this.stderrTty = opts.stderrTty ?? Boolean(process.stderr.isTTY);
    const noColor = opts.noColor ?? envSet('NO_COLOR');
    this.mode = opts.json ? 'json' : stdoutTty ? 'table' : 'tsv';
    this.color = createColors(this.mode === 'table' && !noColor);
    this.errColor = createColors(this.stderrTty && !noColor);
  }

  /** A list: JSON array, header-less TSV rows, or a table. */
  list<T>(rows: readonly T[], columns: readonly Column<T>[], empty = 'Nothing to show'): void {
    if (this.mode === 'json') return this.json(rows);
    if (this.mode === 'tsv') {
      for (const r of rows) this.out.write(tsvRow(columns.map((c) => c.value(r))));
      return;
    }
    if (rows.length === 0) return this.info(empty);
    this.out.write(renderTable(rows, columns, this.color) + '\n');
  }

  /** One resource: JSON object, `field<TAB>value` lines, or a two-column table. */
  item(obj: object): void {
    if (this.mode === 'json') return this.json(obj);
    const entries = Object.entries(obj);
    if (this.mode === 'tsv') {
      for (const [k, v] of entries) this.out.write(tsvRow([k, v]));
      return;
    }
    const t = new Table({ style: { head: [], border: [] } });
    for (const [k, v] of entries) t.push({ [this.color.bold(k)]: tableCell(v) || this.color.dim('—') });
    this.out.write(t.toString() + '\n');
  }

  json(data: unknown): void {
    this.out.write(JSON.stringify(data, null, 2) + '\n');
  }

  /** A message for people, on stderr (never mixed into the data on stdout). */
  info(message: string): void {
    this.err.write(message + '\n');
  }

  /** A success line on stderr, green ✓ on a terminal. */
  success(message: string): void {
    this.err.write(`${this.errColor.green('✓')} ${message}\n`);
  }

  warn(message: string): void {
    this.err.write(`${this.errColor.yellow('!')} ${message}\n`);
  }
}

/** A cell as plain text: null → empty, objects as JSON. */
export function plain(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

// Control characters in data (anyone can join with any name) would break rows or drive the terminal:
// they are shown as escapes. Tabs and newlines as \t \n \r, the rest as \xNN.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point (they are escaped)
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const escapeControl = (c: string) => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** A cell for a table: control characters made visible. */
export const tableCell = (v: unknown) => plain(v).replace(CONTROL, escapeControl);

/** A cell for TSV: backslashes doubled, control characters escaped, so every row stays one line. */
export const tsvCell = (v: unknown) => plain(v).replace(/\\/g, '\\\\').replace(CONTROL, escapeControl);

/** One TSV line. */
export function tsvRow(values: readonly unknown[]): string {
  return values.map(tsvCell).join('\t') + '\n';
}

/** A cli-table3 table with bold headers (colour only when `color` is enabled). */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], color: Colors): string {
  const t = new Table({
    head: columns.map((c) => color.bold(c.header)),
    style: { head: [], border: [] },
    wordWrap: false,
  });
  for (const r of rows) t.push(columns.map((c) => tableCell(c.pretty ? c.pretty(r) : c.value(r))));
  return t.toString();
}

/** `2026-11-21T19:56:42.123Z` → `2026-11-21 19:56` (UTC), for tables. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '';
  return iso.replace('T', ' ').slice(0, 16);
}

/** An approximate byte size for progress lines. */
export function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}
