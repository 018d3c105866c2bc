import { it } from 'vitest';
import { Client, cleanup, postJoin, projectWithKey, signedUp, startServer } from '../helpers/server.js';
it('probe', async () => {
  const srv = await startServer();
  const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => new Client(srv.url).post('/api/auth/signup', { email: `race${i}@example.com`, password: 'password1' })));
  console.log('signups', rs.map((r) => r.status));
  const c = new Client(srv.url); await c.post('/api/auth/login', { email: 'race0@example.com', password: 'password1' });
  let owner = c;
  if (rs[0]!.status !== 201) { const i = rs.findIndex(r => r.status === 201); owner = new Client(srv.url); await owner.post('/api/auth/login', { email: `race${i}@example.com`, password: 'password1' }); }
  const P = await projectWithKey(owner, 'probe');
  const j = await postJoin(srv.url, P.slug, P.key, '{"email":"p@example.com","name":"Émile Zola","metadata":{"__proto__":{"x":1},"a":1}}');
  console.log('join', j.status, j.text);
  const e = await owner.get(`/api/project/${P.projectId}/waitlist/${j.body.data.entryId}`);
  console.log('entry', e.text);
  for (const q of ['Émile', 'émile', 'ÉMILE', 'zola', 'ZOLA']) console.log(q, (await owner.get(`/api/project/${P.projectId}/waitlist?search=${encodeURIComponent(q)}`)).body.data.total);
  const ps = await Promise.all(Array.from({ length: 6 }, () => owner.post('/api/project', { name: 'same', slug: 'same-slug' })));
  console.log('projects', ps.map(r => r.status));
  console.log((await owner.req('HEAD', '/healthz')).status);
  await srv.stop(); cleanup(srv);
});
