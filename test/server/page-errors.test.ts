// The pages for people (`/w/…`) answer a browser's request that fails with a short HTML page of the
// same status (src/server/http.ts sendErrorFor): a mistyped link to a hosted page shows "Page not found",
// not a JSON envelope. (The status and leave pages already drew their own.) A client that does not ask
// for HTML, and every other route, still gets the envelope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let slug = '';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

beforeAll(async () => {
  srv = await startServer();
  const owner = await signedUp(srv.url);
  slug = (await projectWithKey(owner, 'Pages')).slug;
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

const get = (path: string, accept?: string) => fetch(new URL(path, srv.url), { headers: accept ? { accept } : {} });

describe('a page for people that cannot be shown', () => {
  it('a browser gets a 404 page for a waitlist that does not exist', async () => {
    const r = await get('/w/no-such-waitlist', BROWSER);
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    const body = await r.text();
    expect(body).toContain('<h1>Page not found</h1>');
    expect(body).toContain('There is no waitlist page at this address.');
  });

  it("the subscriber's pages of a waitlist that does not exist are 404 pages, as they were", async () => {
    for (const path of ['/w/no-such-waitlist/status?token=x', '/w/no-such-waitlist/leave?token=x']) {
      const r = await get(path, BROWSER);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
  });

  it('an unknown page under a real waitlist is a 404 page too', async () => {
    const r = await get(`/w/${slug}/nothing-here`, BROWSER);
    expect(r.status).toBe(404);
    expect(await r.text()).toContain('<h1>Page not found</h1>');
  });

  it('a client that does not ask for HTML still gets the envelope', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const r = await get('/w/no-such-waitlist', accept);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(((await r.json()) as { error: unknown }).error).toEqual({ code: 'not_found' });
    }
  });

  it('other routes answer a browser with the envelope, as before', async () => {
    for (const path of ['/v1/waitlist/no-such-waitlist/stats', '/nothing-here', '/api/nothing']) {
      const r = await get(path, BROWSER);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });
});
