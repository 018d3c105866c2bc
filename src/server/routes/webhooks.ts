// Webhooks of one of the user's projects (session; another user's project or webhook is 404).
// The secret appears only in createWebhook's and rotateWebhookSecret's responses.
//   GET    /api/project/:projectId/webhooks                                         listWebhooks
//   POST   /api/project/:projectId/webhooks                                         createWebhook
//   GET    /api/project/:projectId/webhooks/:webhookId                              getWebhook
//   PATCH  /api/project/:projectId/webhooks/:webhookId                              updateWebhook (PUT too)
//   DELETE /api/project/:projectId/webhooks/:webhookId                              deleteWebhook
//   GET    /api/project/:projectId/webhooks/:webhookId/deliveries                   listDeliveries
//   POST   /api/project/:projectId/webhooks/:webhookId/deliveries/:deliveryId/retry retryDelivery
//   POST   /api/project/:projectId/webhooks/:webhookId/test                         testWebhook
//   POST   /api/project/:projectId/webhooks/:webhookId/rotate-secret                rotateWebhookSecret
//   GET    /api/project/:projectId/emails                                           listEmails (the email log)
import type { Polka } from 'polka';
import { createWebhookBody, KEEP_PREVIOUS_DEFAULT_SEC, rotateWebhookSecretBody, updateWebhookBody } from '../../contract/events.js';
import { pageQuery } from '../../contract/schemas.js';
import { getProject } from '../../core/projects.js';
import * as hooks from '../../core/webhooks.js';
import { userOf, type Deps, type Req } from '../context.js';
import { hasBody, parseQuery, readJson, send } from '../http.js';
import { pageArgs, pageOf } from '../paging.js';

const READ_ONLY = ['webhookId', 'secret', 'createdAt', 'updatedAt'];

export function webhookRoutes(app: Polka<Req>, { store, dispatcher, options }: Deps) {
  const project = (req: Req) => getProject(store, userOf(req).id, req.params.projectId!);
  const allowPrivate = Boolean(options.allowPrivateWebhooks);
  const base = '/api/project/:projectId/webhooks';

  app.get(base, async (req, res) => {
    const p = await project(req);
    const q = parseQuery(req, pageQuery);
    const { rows, total } = await hooks.listWebhooks(store, p.id, pageArgs(q));
    send(res, 200, 'Webhooks', pageOf(rows.map(hooks.toWebhook), q, total));
  });

  app.post(base, async (req, res) => {
    const p = await project(req);
    const body = await readJson(req, createWebhookBody, READ_ONLY);
    const row = await hooks.createWebhook(store, p.id, body, allowPrivate);
    send(res, 201, 'Webhook created; store its secret now, it is not shown again', { ...hooks.toWebhook(row), secret: row.secret });
  });

  app.get(`${base}/:webhookId`, async (req, res) => {
    const p = await project(req);
    send(res, 200, 'Webhook', hooks.toWebhook(await hooks.getWebhook(store, p.id, req.params.webhookId!)));
  });

  const update = async (req: Req, res: Parameters<Parameters<typeof app.get>[1]>[1]) => {
    const p = await project(req);
    await hooks.getWebhook(store, p.id, req.params.webhookId!); // 404 before 400
    const body = await readJson(req, updateWebhookBody, READ_ONLY);
    const w = await hooks.updateWebhook(store, p.id, req.params.webhookId!, body, allowPrivate);
    send(res, 200, 'Webhook updated', hooks.toWebhook(w));
  };
  app.patch(`${base}/:webhookId`, update);
  app.put(`${base}/:webhookId`, update);

  app.delete(`${base}/:webhookId`, async (req, res) => {
    const p = await project(req);
    const w = await hooks.deleteWebhook(store, p.id, req.params.webhookId!);
    send(res, 200, 'Webhook deleted', { ...hooks.toWebhook(w), deletedAt: new Date().toISOString() });
  });

  app.get(`${base}/:webhookId/deliveries`, async (req, res) => {
    const p = await project(req);
    const q = parseQuery(req, pageQuery);
    const { rows, total } = await hooks.listDeliveries(store, p.id, req.params.webhookId!, pageArgs(q));
    send(res, 200, 'Deliveries', pageOf(rows.map(hooks.toDelivery), q, total));
  });

  app.post(`${base}/:webhookId/deliveries/:deliveryId/retry`, async (req, res) => {
    const p = await project(req);
    const d = await hooks.retryDelivery(store, dispatcher, p.id, req.params.webhookId!, req.params.deliveryId!);
    send(res, 200, d.status === 'delivered' ? 'Delivered' : 'Delivery attempted', hooks.toDelivery(d));
  });

  app.post(`${base}/:webhookId/rotate-secret`, async (req, res) => {
    const p = await project(req);
    await hooks.getWebhook(store, p.id, req.params.webhookId!); // 404 before 400
    const body = hasBody(req) ? await readJson(req, rotateWebhookSecretBody) : {};
    const keep = body.keepPreviousFor ?? KEEP_PREVIOUS_DEFAULT_SEC;
    const w = await hooks.rotateWebhookSecret(store, p.id, req.params.webhookId!, keep);
    send(res, 200, 'Secret rotated; store the new one now, it is not shown again', {
      ...hooks.toWebhook(w),
      secret: w.secret,
      previousSecretExpiresAt: w.previousSecretExpiresAt === null ? null : new Date(w.previousSecretExpiresAt).toISOString(),
    });
  });

  app.post(`${base}/:webhookId/test`, async (req, res) => {
    const p = await project(req);
    const d = await hooks.testWebhook(store, dispatcher, p.id, req.params.webhookId!);
    send(res, 200, d.status === 'delivered' ? 'Ping delivered' : 'Ping attempted', hooks.toDelivery(d));
  });

  app.get('/api/project/:projectId/emails', async (req, res) => {
    const p = await project(req);
    const q = parseQuery(req, pageQuery);
    const { rows, total } = await hooks.listEmails(store, p.id, pageArgs(q));
    send(res, 200, 'Emails', pageOf(rows.map(hooks.toEmailLog), q, total));
  });
}
