// End-to-end smoke: signup → project → key → join → list, over real HTTP on a temp database.
import { beforeAll, describe, expect, it } from 'vitest';
import { postJoin, projectWithKey, signedUp, type Client, useServer } from '../helpers/server.js';

let owner: Client;

const srv = useServer();
beforeAll(async () => {
  owner = await signedUp(srv.url);
});

describe('quick start flow', () => {
  it('joins a subscriber and lists it', async () => {
    const { projectId, slug, key } = await projectWithKey(owner, 'Smoke');
    const j = await postJoin(srv.url, slug, key, { email: 'first@example.com' });
    expect(j.status).toBe(201);
    expect(j.body).toMatchObject({ status: 'success', data: { email: 'first@example.com' } });
    expect(Number.isInteger(j.body.timestamp)).toBe(true);
    const list = await owner.get(`/api/project/${projectId}/waitlist`);
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(list.body.data.items[0]).toMatchObject({ email: 'first@example.com', source: 'landing-page', metadata: {} });
  });

  it('answers /healthz and unknown routes with the envelope', async () => {
    const h = await owner.get('/healthz');
    expect(h.status).toBe(200);
    expect(h.body.status).toBe('success');
    const nf = await owner.get('/no/such/route');
    expect(nf.status).toBe(404);
    expect(nf.body).toMatchObject({ status: 'error', error: { code: 'not_found' } });
  });
});
