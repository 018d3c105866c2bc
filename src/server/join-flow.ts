// What a join does once the caller is authorised for the project and its body parsed: shared by the
// JSON join route, plain form posts to it, and the hosted page's own form (which joins on behalf of
// the project, without a key). Order after the body's schema: honeypot → disposable domain → captcha
// → custom fields → insert (409 on a duplicate).
import type { JoinBody } from '../contract/schemas.js';
import { checkCaptcha } from '../core/captcha.js';
import { DEFAULT_SOURCE, joinWaitlist } from '../core/entries.js';
import { fieldsJson } from '../core/fields.js';
import { countryOf } from '../core/geo.js';
import { newId } from '../core/ids.js';
import { checkDisposable, featureSettings, honeypotFilled } from '../core/settings.js';
import type { ProjectRow } from '../db/store.js';
import { clientIp } from './client-ip.js';
import type { Deps, Req } from './context.js';

/** The 201 `data` of a join. */
export type JoinData = Record<string, unknown> & { entryId: string; email: string };

/** Runs a validated join for `project`; throws AppError (400/409) like the join route answers. */
export async function completeJoin(deps: Deps, req: Req, project: ProjectRow, keyId: string, body: JoinBody): Promise<JoinData> {
  const defs = featureSettings(project).fields;
  if (honeypotFilled(project, body)) {
    // A bot: answer like a success, store nothing.
    return {
      entryId: newId('ent'),
      email: body.email,
      name: body.name ? body.name : null,
      source: body.source ?? DEFAULT_SOURCE,
      fields: {},
      createdAt: new Date().toISOString(),
    };
  }
  checkDisposable(project, body.email);
  const fields = fieldsJson(defs, body.fields);
  await checkCaptcha(deps.store, project, body.altcha);
  const ip = clientIp(req, deps.trust);
  const ua = req.headers['user-agent'];
  const entry = await joinWaitlist(
    deps.store,
    { projectId: project.id, keyId, ip, country: ip ? countryOf(ip) : null, userAgent: ua ? ua.slice(0, 512) : null },
    body,
    fields,
  );
  return {
    entryId: entry.id,
    email: entry.email,
    name: entry.name,
    source: entry.source,
    fields: JSON.parse(fields) as Record<string, unknown>,
    createdAt: new Date(entry.createdAt).toISOString(),
  };
}
