// Projects of the signed-in user (all routes need a session).
//   GET    /api/project                listProjects
//   POST   /api/project                createProject
//   GET    /api/project/:projectId     getProject
//   PUT    /api/project/:projectId     updateProject
//   DELETE /api/project/:projectId     deleteProject
import type { Polka } from 'polka';
import { createProjectBody, pageQuery, updateProjectBody } from '../../contract/schemas.js';
import * as projects from '../../core/projects.js';
import { toProject, withDeletedAt } from '../../core/serialize.js';
import { userOf, type Deps, type Req } from '../context.js';
import { parseQuery, readJson, send } from '../http.js';
import { pageArgs, pageOf } from '../paging.js';

const READ_ONLY = ['slug', 'projectId', 'createdAt', 'updatedAt', 'deletedAt'];

export function projectRoutes(app: Polka<Req>, { store }: Deps) {
  app.get('/api/project', async (req, res) => {
    const q = parseQuery(req, pageQuery);
    const { rows, total } = await projects.listProjects(store, userOf(req).id, pageArgs(q));
    send(res, 200, 'Projects', pageOf(rows.map(toProject), q, total));
  });

  app.post('/api/project', async (req, res) => {
    const body = await readJson(req, createProjectBody, ['projectId', 'createdAt', 'updatedAt']);
    send(res, 201, 'Project created', toProject(await projects.createProject(store, userOf(req).id, body)));
  });

  app.get('/api/project/:projectId', async (req, res) => {
    send(res, 200, 'Project', toProject(await projects.getProject(store, userOf(req).id, req.params.projectId!)));
  });

  app.put('/api/project/:projectId', async (req, res) => {
    const user = userOf(req);
    await projects.getProject(store, user.id, req.params.projectId!); // 404 before 400 for others' ids
    const body = await readJson(req, updateProjectBody, READ_ONLY);
    send(res, 200, 'Project updated', toProject(await projects.renameProject(store, user.id, req.params.projectId!, body.name)));
  });

  app.delete('/api/project/:projectId', async (req, res) => {
    const p = await projects.deleteProject(store, userOf(req).id, req.params.projectId!);
    send(res, 200, 'Project deleted', withDeletedAt(toProject(p), p.deletedAt));
  });
}
