// Join settings of a project (session; another user's project is 404).
//   GET /api/project/:projectId/settings   getSettings
//   PUT /api/project/:projectId/settings   updateSettings   (only the fields given change)
import type { Polka } from 'polka';
import { projectSettingsBody } from '../../contract/schemas.js';
import { checkEmailSettings } from '../../core/outbox.js';
import { getProject } from '../../core/projects.js';
import { toSettings, updateSettings } from '../../core/settings.js';
import { userOf, type Deps, type Req } from '../context.js';
import { checkLifecycleSettings } from '../lifecycle-http.js';
import { readJson, send } from '../http.js';

export function settingsRoutes(app: Polka<Req>, deps: Deps) {
  const { store, mailer } = deps;
  app.get('/api/project/:projectId/settings', async (req, res) => {
    send(res, 200, 'Project settings', toSettings(await getProject(store, userOf(req).id, req.params.projectId!)));
  });

  app.put('/api/project/:projectId/settings', async (req, res) => {
    const user = userOf(req);
    await getProject(store, user.id, req.params.projectId!); // 404 before 400 for others' ids
    // Larger than other bodies: custom field definitions (20 fields of up to 100 options) take room.
    const body = await readJson(req, projectSettingsBody, [], 256 * 1024);
    // Only the fields given change: none given (`{}`) changes nothing and answers the settings as they are.
    if (Object.keys(body).length === 0) {
      send(res, 200, 'Project settings unchanged', toSettings(await getProject(store, user.id, req.params.projectId!)));
      return;
    }
    checkEmailSettings(body, mailer !== null);
    await checkLifecycleSettings(deps, user.id, req.params.projectId!, body);
    // A referralBoost re-keys the referrers in the settings' own transaction (src/core/settings.ts).
    const updated = await updateSettings(store, user.id, req.params.projectId!, body);
    send(res, 200, 'Project settings updated', toSettings(updated));
  });
}
