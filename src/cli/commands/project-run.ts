// Bodies of the project commands, loaded only when one runs.
import { createProjectBody, projectSettingsBody, updateProjectBody } from '../../contract/schemas.js';
import { CliError, EXIT } from '../errors.js';
import { surfaceChange, type SurfaceOpts } from './settings-surface.js';
import { projectColumns } from '../columns.js';
import { allPages, type CliContext, confirmDelete, interactive, output, sessionClient, validate, type JsonOpt } from '../context.js';

export async function listProjects(ctx: CliContext, opts: JsonOpt) {
  const client = await sessionClient(ctx);
  const items = await allPages((page) => client.listProjects({ page, limit: 100 }));
  output(ctx, opts).list(items, projectColumns, 'No projects yet: create one with `waitlist project create --name "My App"`');
}

export async function getProject(ctx: CliContext, ref: string, opts: JsonOpt) {
  const client = await sessionClient(ctx);
  output(ctx, opts).item(await client.getProject(ref));
}

export async function createProject(ctx: CliContext, opts: JsonOpt & { name: string; slug?: string }) {
  const body = validate(createProjectBody, { name: opts.name, ...(opts.slug !== undefined ? { slug: opts.slug } : {}) });
  const client = await sessionClient(ctx);
  const p = await client.createProject(body);
  const out = output(ctx, opts);
  out.success(`Created project ${p.name} (slug ${p.slug}); join URL: ${client.server}/v1/waitlist/${p.slug}/join`);
  out.item(p);
}

export async function updateProject(ctx: CliContext, ref: string, opts: JsonOpt & { name: string }) {
  const body = validate(updateProjectBody, { name: opts.name });
  const client = await sessionClient(ctx);
  const p = await client.updateProject(ref, body);
  const out = output(ctx, opts);
  out.success(`Renamed project ${p.slug} to ${p.name}`);
  out.item(p);
}

export async function deleteProject(ctx: CliContext, ref: string, opts: JsonOpt & { yes?: boolean }) {
  const client = await sessionClient(ctx);
  // On a terminal, look it up first so the question names it (and a wrong id fails before asking).
  const label =
    interactive(ctx) && !opts.yes ? await client.getProject(ref).then((p) => `project ${p.name} (${p.slug})`) : `project ${ref}`;
  await confirmDelete(ctx, label, opts.yes);
  const p = await client.deleteProject(ref);
  const out = output(ctx, opts);
  out.success(`Deleted project ${p.slug}; an operator can bring it back with \`waitlist admin project restore ${p.projectId}\``);
  if (out.mode === 'json') out.json(p);
}

export interface SettingsOpts extends JsonOpt, SurfaceOpts {
  allowedOrigins?: string;
  anyOrigin?: boolean;
  blockDisposable?: boolean;
  honeypotField?: string | false;
  welcomeEmail?: boolean;
  notifyEmails?: string;
  notify?: string;
  doubleOptIn?: boolean;
  referralBoost?: number;
  referralUrl?: string | false;
  publicLeaderboard?: boolean;
  inviteTtlDays?: number;
  inviteUrl?: string | false;
  pendingPurgeDays?: number;
}

/** Shows the project's settings, or changes the ones named by flags and shows the result. */
export async function projectSettings(ctx: CliContext, ref: string, opts: SettingsOpts) {
  if (opts.allowedOrigins !== undefined && opts.anyOrigin) {
    throw new CliError('give --allowed-origins or --any-origin, not both', EXIT.usage);
  }
  const change: Record<string, unknown> = {};
  if (opts.allowedOrigins !== undefined)
    change.allowedOrigins = opts.allowedOrigins
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
  if (opts.anyOrigin) change.allowedOrigins = [];
  if (opts.blockDisposable !== undefined) change.blockDisposableEmails = opts.blockDisposable;
  if (opts.honeypotField !== undefined) change.honeypotField = opts.honeypotField === false ? null : opts.honeypotField;
  if (opts.welcomeEmail !== undefined) change.welcomeEmail = opts.welcomeEmail;
  if (opts.notifyEmails !== undefined)
    change.notifyEmails = opts.notifyEmails
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
  if (opts.notify !== undefined) change.notify = opts.notify;
  if (opts.doubleOptIn !== undefined) change.doubleOptIn = opts.doubleOptIn;
  if (opts.referralBoost !== undefined) change.referralBoost = opts.referralBoost;
  if (opts.referralUrl !== undefined) change.referralUrl = opts.referralUrl === false ? null : opts.referralUrl;
  if (opts.publicLeaderboard !== undefined) change.publicLeaderboard = opts.publicLeaderboard;
  if (opts.inviteTtlDays !== undefined) change.inviteTtlDays = opts.inviteTtlDays;
  if (opts.inviteUrl !== undefined) change.inviteUrl = opts.inviteUrl === false ? null : opts.inviteUrl;
  if (opts.pendingPurgeDays !== undefined) change.pendingPurgeDays = opts.pendingPurgeDays;
  const surface = surfaceChange(opts);
  Object.assign(change, surface.change);
  const client = await sessionClient(ctx);
  const out = output(ctx, opts);
  if (Object.keys(change).length === 0) return out.item(await client.getSettings(ref));
  const body = validate(projectSettingsBody, change, {
    allowedOrigins: '--allowed-origins',
    blockDisposableEmails: '--block-disposable',
    honeypotField: '--honeypot-field',
    welcomeEmail: '--welcome-email',
    notifyEmails: '--notify-emails',
    notify: '--notify',
    doubleOptIn: '--double-opt-in',
    referralBoost: '--referral-boost',
    referralUrl: '--referral-url',
    publicLeaderboard: '--public-leaderboard',
    inviteTtlDays: '--invite-ttl-days',
    inviteUrl: '--invite-url',
    pendingPurgeDays: '--pending-purge-days',
    ...surface.flags,
  });
  const settings = await client.updateSettings(ref, body);
  out.success(`Updated the settings of project ${ref}`);
  out.item(settings);
}
