// Bodies of the entry commands, loaded only when one runs.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { updateEntryBody, type ExportFormat } from '../../contract/schemas.js';
import type { Entry } from '../../contract/types.js';
import type { EntryStatusName } from '../../contract/lifecycle.js';
import { entryColumns } from '../columns.js';
import { type CliContext, confirmDelete, output, sessionClient, validate, type JsonOpt } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import type { Output } from '../output.js';
import type { WaitlistClient } from '../../client/index.js';

interface ProjectOpt extends JsonOpt {
  project: string;
}

interface ListOpts extends ProjectOpt {
  search?: string;
  page?: number;
  limit?: number;
  all?: boolean;
  status?: EntryStatusName;
  sort?: 'newest' | 'position';
}

export async function listEntries(ctx: CliContext, opts: ListOpts) {
  const client = await sessionClient(ctx);
  const out = output(ctx, opts);
  if (!opts.all) {
    const page = await client.listEntries(opts.project, {
      page: opts.page,
      limit: opts.limit,
      search: opts.search,
      status: opts.status,
      sort: opts.sort,
    });
    out.list(page.items, entryColumns, page.total === 0 ? 'No entries' : `No entries on page ${page.page}`);
    if (out.mode === 'table' && page.total > 0) {
      out.info(out.errColor.dim(`Page ${page.page} of ${page.totalPages} · ${page.total} entries (--page N, or --all for every page)`));
    }
    return;
  }
  await listAll(client, opts, out);
}

/**
 * --all: every page is fetched before anything is printed, so a walk that fails half-way (the server
 * goes away, the session expires) prints nothing on stdout, only the error. `entry export` is the
 * streaming tool for lists too long to hold in memory.
 */
async function listAll(client: WaitlistClient, opts: ListOpts, out: Output) {
  const seen = new Set<string>(); // an entry joining meanwhile shifts pages by one: never list a row twice
  const rows: Entry[] = [];
  for (let page = 1; ; page++) {
    const p = await client.listEntries(opts.project, {
      page,
      limit: opts.limit ?? 100,
      search: opts.search,
      status: opts.status,
      sort: opts.sort,
    });
    for (const e of p.items) {
      if (seen.has(e.entryId)) continue;
      seen.add(e.entryId);
      rows.push(e);
    }
    if (page >= p.totalPages || p.items.length === 0) break;
  }
  out.list(rows, entryColumns, 'No entries');
  if (out.mode === 'table' && rows.length) out.info(out.errColor.dim(`${rows.length} entries`));
}

export async function getEntry(ctx: CliContext, entryId: string, opts: ProjectOpt) {
  const client = await sessionClient(ctx);
  output(ctx, opts).item(await client.getEntry(opts.project, entryId));
}

export async function updateEntry(
  ctx: CliContext,
  entryId: string,
  opts: ProjectOpt & { name?: string; metadata?: Record<string, unknown> },
) {
  if (opts.name === undefined && opts.metadata === undefined) {
    throw new CliError('nothing to change: give --name and/or --metadata', EXIT.usage);
  }
  const body = validate(updateEntryBody, {
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.metadata !== undefined ? { metadata: opts.metadata } : {}),
  });
  const client = await sessionClient(ctx);
  const e = await client.updateEntry(opts.project, entryId, body);
  const out = output(ctx, opts);
  out.success(`Updated entry ${e.entryId} (${e.email})`);
  out.item(e);
}

export async function deleteEntry(ctx: CliContext, entryId: string, opts: ProjectOpt & { yes?: boolean }) {
  const client = await sessionClient(ctx);
  await confirmDelete(ctx, `entry ${entryId} of project ${opts.project}`, opts.yes);
  const e = await client.deleteEntry(opts.project, entryId);
  const out = output(ctx, opts);
  out.success(`Deleted entry ${e.entryId} (${e.email}); that email may join again`);
  if (out.mode === 'json') out.json(e);
}

/** The format named by --format, else by --output's extension, else json (the server's default). */
export function exportFormat(format: string | undefined, file: string | undefined): ExportFormat {
  if (format) return format as ExportFormat;
  const ext = file?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (ext === 'csv') return 'csv';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  return 'json';
}

export async function exportEntries(
  ctx: CliContext,
  opts: { project: string; format?: string; json?: boolean; output?: string; search?: string },
) {
  // --json is the json format, so scripts can pass it to every command alike (`waitlist --json entry export …`).
  if (opts.json && opts.format && opts.format !== 'json') {
    throw new CliError(`--json and --format ${opts.format} disagree: --json means --format json; give one of them`, EXIT.usage);
  }
  const file = opts.output === '-' ? undefined : opts.output; // `-o -` is stdout, as in most tools
  const format = exportFormat(opts.json ? 'json' : opts.format, file);
  if (file && (await stat(file).catch(() => undefined))?.isDirectory()) {
    throw new CliError(`--output ${file} is a directory: give a file name, e.g. --output ${join(file, 'subscribers.csv')}`, EXIT.usage);
  }
  const client = await sessionClient(ctx);
  const { runExport } = await import('./export-run.js');
  await runExport(ctx, client, { project: opts.project, format, search: opts.search, file });
}
