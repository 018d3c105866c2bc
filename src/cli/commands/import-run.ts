// `waitlist entry import`: streams a CSV or NDJSON file to the server's import route as it is read
// (any size, nothing held in memory), with a progress bar on stderr when it is a terminal, then prints
// the result: counts, and the bad rows with their line numbers.
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { pipeline, Readable, Transform } from 'node:stream';
import { ApiError, type ImportResult, type WaitlistClient } from '../../client/index.js';
import { type CliContext, output, sessionClient, type JsonOpt } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { humanBytes, type Output } from '../output.js';

export interface ImportOpts extends JsonOpt {
  project: string;
  file: string;
  format?: 'csv' | 'ndjson';
  dryRun?: boolean;
  dateFormat?: 'auto' | 'dmy' | 'mdy';
}

/** The format from --format, else the file's extension (.ndjson/.jsonl → ndjson), else csv. */
export const formatOf = (opts: Pick<ImportOpts, 'format' | 'file'>) =>
  opts.format ?? (['.ndjson', '.jsonl'].includes(extname(opts.file).toLowerCase()) ? 'ndjson' : 'csv');

/** Counts the bytes handed to the upload (read from the file and taken by fetch). */
function byteCounter() {
  const counter = Object.assign(
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        counter.sent += chunk.length;
        done(null, chunk);
      },
    }),
    { sent: 0 },
  );
  return counter;
}

function progress(out: Output, total: number, counter: ReturnType<typeof byteCounter>) {
  const draw = () => {
    const sent = counter.sent;
    const frac = total ? Math.min(1, sent / total) : 0;
    const width = 24;
    const filled = Math.round(frac * width);
    out.err.write(
      `\r\x1b[K${out.errColor.cyan('█'.repeat(filled))}${'░'.repeat(width - filled)} ${(frac * 100).toFixed(0).padStart(3)}%  ${humanBytes(sent)} of ${humanBytes(total)}${frac === 1 ? ', the server is finishing…' : ''}`,
    );
  };
  const timer = setInterval(draw, 100);
  draw();
  return {
    stop() {
      clearInterval(timer);
      out.err.write('\r\x1b[K');
    },
  };
}

/** `1 entry`, `2 entries`, `1,000 bad rows`. */
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** Why a local file cannot be read, in a few words. */
const unreadable = (file: string, err: NodeJS.ErrnoException) =>
  `cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'it is a directory' : err.message}`;

/** The shortest --import-timeout a server takes (`serve --import-timeout`, 1–86,400 s, default 3,600). */
const MIN_IMPORT_TIMEOUT_MS = 1000;
/** Causes that mean no connection was made: nothing was cut, the server was never reached. */
const NO_CONNECTION = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)$/;

/**
 * The server gives an import file --import-timeout seconds to arrive. Its 408 says that limit was hit.
 * A connection cut while the file was still being sent, at least a second in, may be the same limit
 * (the server closed it before its answer could be read), so the advice comes with what was sent.
 * Anything else (a refused connection, a reset or crash within the first second, a drop once the whole
 * file was sent) is the network error as other commands report it, with its cause's code.
 */
function uploadError(err: ApiError, at: { sent: number; size: number; ms: number }): ApiError | CliError {
  if (err.status === 408) {
    return new CliError(
      `${err.message}: the server stopped waiting for the file before all of it arrived (its --import-timeout, default 3600 s). ` +
        'Start the server with a longer --import-timeout (e.g. 7200), or split the file',
      EXIT.error,
    );
  }
  const cutMidUpload =
    err.code === 'network' && !NO_CONNECTION.test(err.reason ?? '') && at.sent < at.size && at.ms >= MIN_IMPORT_TIMEOUT_MS;
  if (!cutMidUpload) return err;
  return new CliError(
    `${err.message}: the connection was cut after ${(at.ms / 1000).toFixed(1)} s, with ${humanBytes(at.sent)} of ${humanBytes(at.size)} sent. ` +
      "If the upload takes longer than the server's --import-timeout (default 3600 s), start it with a longer one (e.g. 7200), or split the file",
    EXIT.error,
  );
}

export async function importEntries(ctx: CliContext, opts: ImportOpts) {
  const out = output(ctx, opts);
  // The file is opened before anything is sent: a missing file, a directory or one without read permission
  // is a local error (exit 2), never "cannot reach the server".
  const handle = await open(opts.file, 'r').catch((err: NodeJS.ErrnoException) => {
    throw new CliError(unreadable(opts.file, err), EXIT.usage);
  });
  let size: number;
  let client: WaitlistClient;
  try {
    const st = await handle.stat();
    if (st.isDirectory()) throw new CliError(`cannot read ${opts.file}: it is a directory`, EXIT.usage);
    size = st.size;
    client = await sessionClient(ctx);
  } catch (err) {
    await handle.close();
    throw err;
  }
  const file = handle.createReadStream();
  let readError: NodeJS.ErrnoException | undefined;
  file.on('error', (err) => (readError = err));
  const counter = byteCounter();
  const bar = out.stderrTty ? progress(out, size, counter) : undefined;
  // pipeline, not pipe: a read error also ends the upload (it is then reported as the file's error).
  const body = pipeline(file, counter, () => {});
  const started = Date.now();
  let result: ImportResult;
  try {
    result = await client.importEntries(opts.project, Readable.toWeb(body) as ReadableStream<Uint8Array>, {
      format: formatOf(opts),
      dryRun: opts.dryRun,
      dateFormat: opts.dateFormat,
    });
  } catch (err) {
    // The file failed while it was being sent (an I/O error): that is the story, not the network.
    if (readError) throw new CliError(unreadable(opts.file, readError), EXIT.error);
    if (err instanceof ApiError) throw uploadError(err, { sent: counter.sent, size, ms: Date.now() - started });
    throw err;
  } finally {
    bar?.stop();
    file.destroy(); // closes the file (also when the server answered before reading all of it)
  }
  if (out.mode === 'json') return out.json(result);
  const verb = result.dryRun ? 'Dry run (nothing written): would import' : 'Imported';
  out.success(
    `${verb} ${count(result.imported, 'entry', 'entries')}; ${count(result.duplicates, 'duplicate')} skipped; ${count(result.invalidCount, 'bad row')}`,
  );
  if (result.dateFormat) out.info(`Slash dates read as ${result.dateFormat === 'dmy' ? 'DD/MM/YYYY' : 'MM/DD/YYYY'}`);
  for (const i of result.invalid) out.info(`  line ${i.line}: ${i.message}`);
  if (result.invalidCount > result.invalid.length)
    out.info(`  … and ${(result.invalidCount - result.invalid.length).toLocaleString('en')} more`);
  if (out.mode === 'tsv') for (const i of result.invalid) out.out.write(`${i.line}\t${i.message.replace(/[\t\n\r]/g, ' ')}\n`);
}
