import { it } from 'vitest';
import { Client, cleanup, postJoin, projectWithKey, signedUp, startServer } from '../helpers/server.js';
it('probe', async () => {
  const srv = await startServer();
  const owner = await signedUp(srv.url);
  const P = await projectWithKey(owner, 'probe');
  const deep = (n: number) => '{"email":"d@example.com","metadata":{"a":' + '['.repeat(n) + ']'.repeat(n) + '}}';
  for (const n of [100, 5000, 8000]) {
    const j = await postJoin(srv.url, P.slug, P.key, deep(n));
    console.log('deep', n, j.status, j.text.slice(0, 150));
  }
  const dq = '{"email":"d2@example.com","a":' + '['.repeat(8000) + ']'.repeat(8000) + '}';
  console.log('deep-unknown', (await postJoin(srv.url, P.slug, P.key, dq)).status);
  const pd = '{"name":' + '['.repeat(8000) + ']'.repeat(8000) + '}';
  console.log('deep-project', (await owner.post('/api/project', pd)).text.slice(0, 200));
  for (const q of ['%', '%zz', '100%', '%E0%A4%A', 'a&search', '']) {
    const r = await owner.get(`/api/project/${P.projectId}/waitlist?search=${q}`);
    console.log('search', q, r.status);
  }
  console.log(srv.output().slice(-2000));
  await srv.stop(); cleanup(srv);
});
