// `waitlist entry export`: pipes the server's streaming export to stdout or a file, chunk by chunk,
// with a progress line on stderr when stderr is a terminal. Nothing holds the whole list.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { lstat, rm } from 'node:fs/promises';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { WaitlistClient } from '../../client/index.js';
import type { ExportFormat } from '../../contract/schemas.js';
import { type CliContext, output } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { humanBytes, type Output } from '../output.js';

/** Lines that are not entries: json has `[`…`]` around them, csv a header row. */
const FRAMING_LINES: Record<ExportFormat, number> = { json: 2, csv: 1, ndjson: 0 };

/**
 * Counts bytes and record lines as they pass (rows = lines minus framing). In CSV a newline inside a
 * quoted cell is part of its record: only newlines outside quotes count (a `""` inside a cell toggles
 * twice). JSON and NDJSON escape newlines inside strings.
 */
class Counter extends Transform {
  bytes = 0;
  lines = 0;
  private quoted = false;
  constructor(private readonly csv: boolean) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void) {
    this.bytes += chunk.length;
    if (!this.csv) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) this.lines++;
    } else {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === 34) this.quoted = !this.quoted;
        else if (b === 10 && !this.quoted) this.lines++;
      }
    }
    done(null, chunk);
  }
}

function progressBar(err: Output, counter: Counter, format: ExportFormat, total: Promise<number | undefined>) {
  let known: number | undefined;
  void total.then((t) => (known = t));
  const draw = () => {
    const rows = Math.max(0, counter.lines - (format === 'json' ? 1 : FRAMING_LINES[format]));
    let line = `Exporting ${rows.toLocaleString('en')} entries, ${humanBytes(counter.bytes)}`;
    if (known) {
      const frac = Math.min(1, rows / known);
      const width = 24;
      const filled = Math.round(frac * width);
      const bar = `${err.errColor.cyan('█'.repeat(filled))}${'░'.repeat(width - filled)}`;
      line = `${bar} ${(frac * 100).toFixed(0).padStart(3)}%  ${rows.toLocaleString('en')}/${known.toLocaleString('en')} entries, ${humanBytes(counter.bytes)}`;
    }
    err.err.write(`\r\x1b[K${line}`);
  };
  draw();
  const timer = setInterval(draw, 100);
  return () => {
    clearInterval(timer);
    err.err.write('\r\x1b[K');
  };
}

export interface ExportOptions {
  project: string;
  format: ExportFormat;
  search?: string | undefined;
  file?: string | undefined;
}

/** Streams the export; resolves with the number of entries written. */
export async function runExport(ctx: CliContext, client: WaitlistClient, opts: ExportOptions): Promise<number> {
  const out = output(ctx);
  const showProgress = out.stderrTty && !(opts.file === undefined && ctx.io.stdoutTty);
  // The total (for the bar) is a cheap count; the export does not wait for it.
  const total = showProgress
    ? client.listEntries(opts.project, { limit: 1, search: opts.search }).then(
        (p) => p.total,
        () => undefined,
      )
    : Promise.resolve(undefined);
  // Errors (404, 401 …) come back before anything is written or any file is created.
  const res = await client.exportEntries(opts.project, { format: opts.format, search: opts.search });
  if (!res.body) throw new CliError('the server sent an empty export', EXIT.error);
  const counter = new Counter(opts.format === 'csv');
  let dest = ctx.io.stdout as Writable;
  // Whether a failed export may remove what -o names: only a regular file (new, or one it overwrote),
  // never a device, a FIFO or a symbolic link the user pointed it at (-o /dev/full, a named pipe).
  let removable = false;
  if (opts.file) {
    // Opened once the server has answered (a failed request creates no file), and before anything is
    // piped, so a file that cannot be created (no such directory, no permission) says just that.
    const file = createWriteStream(opts.file);
    try {
      await once(file, 'open');
    } catch (err) {
      await res.body.cancel().catch(() => {});
      throw new CliError(`cannot write ${opts.file}: ${(err as Error).message}`, EXIT.error);
    }
    dest = file;
    removable = (await lstat(opts.file)).isFile(); // lstat: a symbolic link is not followed
  }
  const stop = showProgress ? progressBar(out, counter, opts.format, total) : () => {};
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), counter, dest, { end: Boolean(opts.file) });
  } catch (err) {
    stop();
    const code = (err as NodeJS.ErrnoException).code;
    if (!opts.file && code === 'EPIPE') return 0; // `… | head`: the reader had enough
    if (opts.file && removable) await rm(opts.file, { force: true });
    throw new CliError(`export interrupted: ${(err as Error).message}`, EXIT.error);
  }
  stop();
  const rows = Math.max(0, counter.lines - FRAMING_LINES[opts.format]);
  if (opts.file) out.success(`Exported ${rows.toLocaleString('en')} entries (${humanBytes(counter.bytes)}) to ${opts.file}`);
  else if (out.stderrTty) out.success(`Exported ${rows.toLocaleString('en')} entries (${humanBytes(counter.bytes)})`);
  return rows;
}
