// Per-project join settings: allowed browser origins, the disposable-email blocklist and a honeypot
// field. Stored on the project row, so the join route reads them with the project in one query.
import { createRequire } from 'node:module';
import { z } from 'zod';
import { joinBody, type ProjectSettings, type ProjectSettingsBody } from '../contract/schemas.js';
import { type EventSettings, eventSettingsDefaults, eventSettingsShape } from '../contract/settings-events.js';
import { type LifecycleSettings, lifecycleSettingsDefaults, lifecycleSettingsShape } from '../contract/settings-lifecycle.js';
import { type SurfaceSettings, surfaceSettingsDefaults, surfaceSettingsShape } from '../contract/settings-surface.js';
import { BoundedMap, CACHE_WEIGHT } from '../db/bounded-map.js';
import type { ProjectRow, ProjectSettingsPatch, Store } from '../db/store.js';
import { invalidField, notFound } from './errors.js';
import { getProject } from './projects.js';
import { asciiDomain } from '../contract/email.js';

/** The settings of the feature layers (events, lifecycle, sign-up surface), kept in one JSON column. */
export type FeatureSettings = EventSettings & LifecycleSettings & SurfaceSettings;
const FEATURE_DEFAULTS: FeatureSettings = { ...eventSettingsDefaults, ...lifecycleSettingsDefaults, ...surfaceSettingsDefaults };
const FEATURE_KEYS: readonly string[] = [
  ...Object.keys(eventSettingsShape),
  ...Object.keys(lifecycleSettingsShape),
  ...Object.keys(surfaceSettingsShape),
];

// Parsed settings per JSON text: the join path reads them per request, the text changes rarely.
// Bounded by size too (bounded-map.ts): the text may be up to 256 KiB.
const parsedSettings = new BoundedMap<string, FeatureSettings>(1000, CACHE_WEIGHT, (text) => 2 * text.length + 256);
/** How much the parsed-settings cache holds (about, in bytes; for tests). */
export const settingsCacheWeight = () => parsedSettings.weight;

/** A project's feature settings with their defaults filled in (stored keys no longer known are dropped). */
export function featureSettings(p: Pick<ProjectRow, 'settings'>): FeatureSettings {
  let s = parsedSettings.get(p.settings);
  if (!s) {
    const stored = JSON.parse(p.settings || '{}') as Record<string, unknown>;
    const known: Record<string, unknown> = {};
    for (const k of FEATURE_KEYS) if (Object.hasOwn(stored, k)) known[k] = stored[k];
    s = { ...FEATURE_DEFAULTS, ...known } as FeatureSettings;
    parsedSettings.set(p.settings, s);
  }
  return s;
}

/** The API shape of a project's settings. */
export function toSettings(p: ProjectRow): ProjectSettings {
  return {
    ...featureSettings(p),
    allowedOrigins: p.allowedOrigins ? (JSON.parse(p.allowedOrigins) as string[]) : [],
    blockDisposableEmails: p.blockDisposable,
    honeypotField: p.honeypotField,
  };
}

/** Applies a settings body (only the fields given) to the user's project. */
export async function updateSettings(store: Store, userId: string, idOrSlug: string, body: ProjectSettingsBody) {
  const p = await getProject(store, userId, idOrSlug);
  const patch: ProjectSettingsPatch = {};
  if (body.allowedOrigins !== undefined) {
    patch.allowedOrigins = body.allowedOrigins.length ? JSON.stringify(body.allowedOrigins) : null;
  }
  if (body.blockDisposableEmails !== undefined) patch.blockDisposable = body.blockDisposableEmails;
  if (body.honeypotField !== undefined) patch.honeypotField = body.honeypotField;
  const given = FEATURE_KEYS.filter((k) => (body as Record<string, unknown>)[k] !== undefined);
  // Merged into the stored settings by the store, under the row's lock: merged here from `p`, read
  // before, a concurrent PUT of another field was written over (PostgreSQL, several requests at once).
  if (given.length) patch.features = Object.fromEntries(given.map((k) => [k, (body as Record<string, unknown>)[k]]));
  // A referralBoost given (changed or not: the same PUT again repairs nothing, but costs little) re-keys
  // the referrers in the settings' own transaction.
  const updated = await store.updateProjectSettings(p.id, patch, body.referralBoost !== undefined);
  if (!updated) throw notFound('Project');
  return updated;
}

/** Whether a browser on `origin` may call the project's join route (no list = any origin). */
export function originAllowed(p: ProjectRow, origin: string): boolean {
  if (!p.allowedOrigins) return true;
  return (JSON.parse(p.allowedOrigins) as string[]).includes(origin.toLowerCase());
}

// The join body with the project's honeypot field accepted, one schema per field name.
const withHoneypot = new Map<string, typeof joinBody>();
/** The strict join-body schema for a project: the contract's, plus its honeypot field if it has one. */
export function joinSchemaFor(p: ProjectRow): typeof joinBody {
  const field = p.honeypotField;
  if (!field) return joinBody;
  let schema = withHoneypot.get(field);
  if (!schema) {
    schema = joinBody.extend({ [field]: z.unknown().optional() }) as never; // absent for every real subscriber
    if (withHoneypot.size > 1000) withHoneypot.clear();
    withHoneypot.set(field, schema!);
  }
  return schema!;
}

/** True when a join body's honeypot field was filled in (bots fill every field they see). */
export function honeypotFilled(p: ProjectRow, body: object): boolean {
  // Only a field actually sent counts: `body.valueOf` would otherwise read Object.prototype's.
  if (!p.honeypotField || !Object.hasOwn(body, p.honeypotField)) return false;
  const v = (body as Record<string, unknown>)[p.honeypotField];
  if (v === undefined || v === null || v === false) return false;
  return typeof v === 'string' ? v.trim() !== '' : true;
}

let blocklist: Set<string> | undefined;
/** True when the email's domain (or a parent domain) is a known throwaway-mail provider. */
export function isDisposableEmail(email: string): boolean {
  // mailchecker's list (~55k domains) loads on first use, only on servers where a project enables it.
  blocklist ??= (createRequire(import.meta.url)('mailchecker') as { blacklist(): Set<string> }).blacklist();
  const raw = email.slice(email.lastIndexOf('@') + 1).trim();
  let domain = asciiDomain(raw) ?? raw.toLowerCase(); // IDN domains in punycode, as the list has them
  for (;;) {
    if (blocklist.has(domain)) return true;
    const dot = domain.indexOf('.');
    if (dot < 0) return false;
    domain = domain.slice(dot + 1);
  }
}

/** 400 validation_failed on `email` when the project blocks throwaway domains and this is one. */
export function checkDisposable(p: ProjectRow, email: string): void {
  if (p.blockDisposable && isDisposableEmail(email)) {
    throw invalidField('email', 'Disposable email addresses are not accepted on this waitlist');
  }
}
