// Email templates of one of the user's projects (session): defaults until changed.
//   GET  /api/project/:projectId/templates           getTemplates
//   PUT  /api/project/:projectId/templates           updateTemplates  (only the templates/parts given change; null = default)
//   POST /api/project/:projectId/templates/preview   previewTemplate  (renders with sample variables; saves nothing)
import type { Polka } from 'polka';
import { previewTemplateBody, putTemplatesBody } from '../../contract/events.js';
import { getProject } from '../../core/projects.js';
import { getTemplates, previewTemplate, putTemplates } from '../../core/template-admin.js';
import { userOf, type Deps, type Req } from '../context.js';
import { readJson, send } from '../http.js';

// Room for what the schemas allow (subjects of 300 characters, bodies of 50,000, in any script: up to 3
// bytes a character, plus JSON escapes): every template at its longest in one PUT, one in a preview.
const TEMPLATES_BODY_BYTES = 2 * 1024 * 1024;
const PREVIEW_BODY_BYTES = 512 * 1024;

export function templateRoutes(app: Polka<Req>, { store }: Deps) {
  const project = (req: Req) => getProject(store, userOf(req).id, req.params.projectId!);

  app.get('/api/project/:projectId/templates', async (req, res) => {
    const p = await project(req);
    send(res, 200, 'Email templates', await getTemplates(store, p.id));
  });

  app.put('/api/project/:projectId/templates', async (req, res) => {
    const p = await project(req);
    const body = await readJson(req, putTemplatesBody, [], TEMPLATES_BODY_BYTES);
    send(res, 200, 'Email templates updated', await putTemplates(store, p.id, body));
  });

  app.post('/api/project/:projectId/templates/preview', async (req, res) => {
    const p = await project(req);
    const body = await readJson(req, previewTemplateBody, [], PREVIEW_BODY_BYTES);
    send(res, 200, 'Preview', await previewTemplate(store, p.id, p.name, body));
  });
}
