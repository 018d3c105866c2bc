// The dashboard's events pages (Webhooks, Email) use the one shared client of api.ts: same origin and
// session cookie, and a 401 sends the user back to the login page like every other tab.
import type { WebhookRotated } from '../../src/contract/events.js';
import { api } from './api.js';

export const eventsClient = () => api;

/** POST …/webhooks/:webhookId/rotate-secret through the shared client (docs/events.md "Rotating a webhook's secret"). */
export const rotateWebhookSecret = (projectId: string, webhookId: string, body: { keepPreviousFor?: number } = {}) =>
  api.request<WebhookRotated>(
    'POST',
    `/api/project/${encodeURIComponent(projectId)}/webhooks/${encodeURIComponent(webhookId)}/rotate-secret`,
    { body },
  );
