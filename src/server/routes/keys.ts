// API keys of one of the user's projects (session). The full key appears only in createKey's response.
//   GET    /api/project/:projectId/apikey           listKeys
//   POST   /api/project/:projectId/apikey           createKey
//   GET    /api/project/:projectId/apikey/:keyId    getKey
//   PUT    /api/project/:projectId/apikey/:keyId    updateKey
//   DELETE /api/project/:projectId/apikey/:keyId    deleteKey
import type { Polka } from 'polka';
import { createKeyBody, pageQuery, updateKeyBody } from '../../contract/schemas.js';
import * as keys from '../../core/keys.js';
import { getProject } from '../../core/projects.js';
import { toKey, withDeletedAt } from '../../core/serialize.js';
import { userOf, type Deps, type Req } from '../context.js';
import { parseQuery, readJson, send } from '../http.js';
import { pageArgs, pageOf } from '../paging.js';

const READ_ONLY = ['keyId', 'key', 'prefix', 'createdAt', 'lastUsedAt', 'kind'];

export function keyRoutes(app: Polka<Req>, { store }: Deps) {
  const project = (req: Req) => getProject(store, userOf(req).id, req.params.projectId!);

  app.get('/api/project/:projectId/apikey', async (req, res) => {
    const p = await project(req);
    const q = parseQuery(req, pageQuery);
    const { rows, total } = await keys.listKeys(store, p.id, pageArgs(q));
    send(res, 200, 'API keys', pageOf(rows.map(toKey), q, total));
  });

  app.post('/api/project/:projectId/apikey', async (req, res) => {
    const p = await project(req);
    const body = await readJson(req, createKeyBody, READ_ONLY);
    const { row, key } = await keys.createKey(store, p.id, body.name, body.kind);
    send(res, 201, 'API key created; store it now, it is not shown again', { ...toKey(row), key });
  });

  app.get('/api/project/:projectId/apikey/:keyId', async (req, res) => {
    const p = await project(req);
    send(res, 200, 'API key', toKey(await keys.getKey(store, p.id, req.params.keyId!)));
  });

  app.put('/api/project/:projectId/apikey/:keyId', async (req, res) => {
    const p = await project(req);
    await keys.getKey(store, p.id, req.params.keyId!);
    const body = await readJson(req, updateKeyBody, READ_ONLY);
    send(res, 200, 'API key updated', toKey(await keys.renameKey(store, p.id, req.params.keyId!, body.name)));
  });

  app.delete('/api/project/:projectId/apikey/:keyId', async (req, res) => {
    const p = await project(req);
    const k = await keys.revokeKey(store, p.id, req.params.keyId!);
    send(res, 200, 'API key revoked', withDeletedAt(toKey(k), k.revokedAt));
  });
}
