// What a join does once the caller is authorised for the project and its body parsed: shared by the
// JSON join route, plain form posts to it, and the hosted page's own form (which joins on behalf of
// the project, without a key). Order after the body's schema: honeypot → disposable domain → custom
// fields → captcha → insert (409 on a duplicate; a still-pending email gets its confirmation again).
import type { JoinBody } from '../contract/schemas.js';
import { checkCaptcha } from '../core/captcha.js';
import { DEFAULT_SOURCE, joinWaitlist } from '../core/entries.js';
import { AppError } from '../core/errors.js';
import { checkFields, fieldsJson } from '../core/fields.js';
import { countryOf } from '../core/geo.js';
import { newId } from '../core/ids.js';
import { newReferralCode, newSecret, positionOf, referralUrlOf, resendIfPending, waitingTotal } from '../core/lifecycle.js';
import { checkDisposable, featureSettings, honeypotFilled, joinSchemaFor } from '../core/settings.js';
import { normEmail } from '../core/users.js';
import type { ProjectRow } from '../db/store.js';
import { clientIp } from './client-ip.js';
import type { Deps, Req } from './context.js';
import { validateBody } from './http.js';
import { baseUrl } from './lifecycle-http.js';

/**
 * A join body checked against the project's schema. When it fails, the custom fields' problems are
 * added to the standard fields' (they are otherwise checked after it), so a form shows every mistake
 * at once.
 */
export function validateJoin(project: ProjectRow, value: unknown): JoinBody {
  try {
    return validateBody(value, joinSchemaFor(project));
  } catch (err) {
    if (!(err instanceof AppError) || !err.issues || value === null || typeof value !== 'object') throw err;
    const more = checkFields(featureSettings(project).fields, (value as { fields?: unknown }).fields).issues;
    throw new AppError(err.code, err.message, [...err.issues, ...more.filter((m) => !err.issues!.some((i) => i.path === m.path))]);
  }
}

/** The 201 `data` of a join. */
export type JoinData = Record<string, unknown> & { entryId: string; email: string; statusToken?: string };

/** Runs a validated join for `project`; throws AppError (400/409) like the join route answers. */
export async function completeJoin(
  deps: Deps,
  req: Req,
  project: ProjectRow,
  keyId: string,
  body: JoinBody,
): Promise<{ message: string; data: JoinData }> {
  const { store } = deps;
  const base = baseUrl(deps, req);
  if (honeypotFilled(project, body)) {
    // A bot: answer like a success (same fields, plausible values), store nothing.
    const pending = featureSettings(project).doubleOptIn;
    const code = newReferralCode();
    return {
      message: pending ? 'Check your inbox to confirm your email' : 'You are on the waitlist',
      data: {
        entryId: newId('ent'),
        email: body.email,
        name: body.name ? body.name : null,
        source: body.source ?? DEFAULT_SOURCE,
        createdAt: new Date().toISOString(),
        fields: {},
        status: pending ? 'pending' : 'waiting',
        position: pending ? null : (await waitingTotal(store, project.id)) + 1,
        referralCode: code,
        referralUrl: referralUrlOf(project, base, code),
        statusToken: newSecret(),
      },
    };
  }
  checkDisposable(project, body.email);
  const fields = fieldsJson(featureSettings(project).fields, body.fields);
  await checkCaptcha(store, project, body.altcha);
  const ip = clientIp(req, deps.trust);
  const ua = req.headers['user-agent'];
  const entry = await joinWaitlist(
    store,
    {
      projectId: project.id,
      project,
      keyId,
      ip,
      country: ip ? countryOf(ip) : null,
      userAgent: ua ? ua.slice(0, 512) : null,
      base,
    },
    body,
    fields,
  ).catch(async (err: unknown) => {
    // A still-pending email joining again: resend its confirmation (throttled), answer 409 as before.
    if (err instanceof AppError && err.code === 'email_taken' && featureSettings(project).doubleOptIn) {
      await resendIfPending(store, project, normEmail(body.email), base).catch(() => undefined);
    }
    throw err;
  });
  // Given by the store inside the join's transaction where it can (SQLite), else read after the commit.
  const position = entry.position !== undefined ? entry.position : await positionOf(store, entry);
  return {
    message: entry.status === 'pending' ? 'Check your inbox to confirm your email' : 'You are on the waitlist',
    data: {
      entryId: entry.id,
      email: entry.email,
      name: entry.name,
      source: entry.source,
      createdAt: new Date(entry.createdAt).toISOString(),
      fields: JSON.parse(fields) as Record<string, unknown>,
      status: entry.status,
      position,
      referralCode: entry.referralCode,
      referralUrl: referralUrlOf(project, base, entry.referralCode!),
      statusToken: entry.statusToken,
    },
  };
}
