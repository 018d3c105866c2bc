// Bodies of the key commands, loaded only when one runs.
import { createKeyBody, updateKeyBody } from '../../contract/schemas.js';
import { createdKeyColumns, keyColumns } from '../columns.js';
import { allPages, type CliContext, confirmDelete, output, sessionClient, validate, type JsonOpt } from '../context.js';

interface ProjectOpt extends JsonOpt {
  project: string;
}

export async function listKeys(ctx: CliContext, opts: ProjectOpt) {
  const client = await sessionClient(ctx);
  const items = await allPages((page) => client.listKeys(opts.project, { page, limit: 100 }));
  output(ctx, opts).list(
    items,
    keyColumns,
    `No keys yet: create one with \`waitlist key create --project ${opts.project} --name "landing page"\``,
  );
}

export async function getKey(ctx: CliContext, keyId: string, opts: ProjectOpt) {
  const client = await sessionClient(ctx);
  output(ctx, opts).item(await client.getKey(opts.project, keyId));
}

export async function createKey(ctx: CliContext, opts: ProjectOpt & { name: string; kind?: 'publishable' | 'secret' }) {
  const body = validate(createKeyBody, { name: opts.name, ...(opts.kind ? { kind: opts.kind } : {}) });
  const client = await sessionClient(ctx);
  const k = await client.createKey(opts.project, body);
  const out = output(ctx, opts);
  if (out.mode === 'json') return out.json(k);
  out.list([k], createdKeyColumns);
  if (out.mode === 'table') {
    out.warn(`This is the only time the full key is shown: ${out.errColor.bold(k.key)}`);
    out.info('Store it now; the server keeps only a bcrypt hash of it.');
  }
}

export async function updateKey(ctx: CliContext, keyId: string, opts: ProjectOpt & { name: string }) {
  const body = validate(updateKeyBody, { name: opts.name });
  const client = await sessionClient(ctx);
  const k = await client.updateKey(opts.project, keyId, body);
  const out = output(ctx, opts);
  out.success(`Renamed key ${k.keyId} to ${k.name}`);
  out.item(k);
}

export async function deleteKey(ctx: CliContext, keyId: string, opts: ProjectOpt & { yes?: boolean }) {
  const client = await sessionClient(ctx);
  await confirmDelete(ctx, `key ${keyId} of project ${opts.project} (joins with it stop working at once)`, opts.yes);
  const k = await client.deleteKey(opts.project, keyId);
  const out = output(ctx, opts);
  out.success(`Revoked key ${k.keyId} (${k.name})`);
  if (out.mode === 'json') out.json(k);
}
