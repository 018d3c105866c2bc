// Client IP and country: the socket peer by default; with --trust-proxy the right-most X-Forwarded-For
// hop that is not a trusted proxy; country from the bundled DB-IP database, empty for private addresses.
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { BIN, Client, postJoin, projectWithKey, signedUp, uniqueEmail, type TestServer, serversForFile } from '../helpers/server.js';

const serve = serversForFile();
/** The server of the first test: no --trust-proxy. */
let untrusted: TestServer;

async function setup(args: string[], env: Record<string, string> = {}) {
  const srv = await serve({ args, env });
  const owner = await signedUp(srv.url);
  const p = await projectWithKey(owner);
  /** Joins with these headers and returns the stored entry's ip and country. */
  const joinFrom = async (headers: Record<string, string>) => {
    const email = uniqueEmail('ip');
    const r = await postJoin(srv.url, p.slug, p.key, { email }, headers);
    expect(r.status).toBe(201);
    const e = await owner.get(`/api/project/${p.projectId}/waitlist/${r.body.data.entryId}`);
    return { ip: e.body.data.ip as string | null, country: e.body.data.country as string | null };
  };
  return { srv, joinFrom };
}

describe('without --trust-proxy', () => {
  it('uses the socket peer and ignores X-Forwarded-For; loopback has no country', async () => {
    const { srv, joinFrom } = await setup([]);
    untrusted = srv;
    expect(await joinFrom({ 'x-forwarded-for': '8.8.8.8' })).toEqual({ ip: '127.0.0.1', country: null });
  });
});

describe('--trust-proxy (loopback and private networks trusted)', () => {
  it('takes the right-most untrusted hop and fills the country for public addresses', async () => {
    const { joinFrom } = await setup(['--trust-proxy']);
    expect(await joinFrom({ 'x-forwarded-for': '8.8.8.8' })).toEqual({ ip: '8.8.8.8', country: 'US' });
    expect(await joinFrom({ 'x-forwarded-for': '81.2.69.142, 10.0.0.2' })).toEqual({ ip: '81.2.69.142', country: 'GB' });
    // A client-supplied first hop is not believed: the proxy appended the real peer after it.
    expect(await joinFrom({ 'x-forwarded-for': '6.6.6.6, 1.1.1.1' })).toEqual({ ip: '1.1.1.1', country: 'AU' });
    expect(await joinFrom({ 'x-forwarded-for': '2a00:1450:4001::1' })).toEqual({ ip: '2a00:1450:4001::1', country: 'DE' });
    expect(await joinFrom({ 'x-forwarded-for': '192.168.1.5' })).toEqual({ ip: '192.168.1.5', country: null });
    expect(await joinFrom({ 'x-forwarded-for': '100.64.0.1' })).toEqual({ ip: '100.64.0.1', country: null }); // CGNAT
    expect(await joinFrom({ 'x-forwarded-for': 'not-an-ip' })).toEqual({ ip: '127.0.0.1', country: null });
    expect(await joinFrom({})).toEqual({ ip: '127.0.0.1', country: null });
  });

  it('believes X-Forwarded-Proto only from a trusted proxy (Secure cookie)', async () => {
    const { srv } = await setup(['--trust-proxy', '--open-signup']);
    const c = new Client(srv.url);
    const r = await c.post(
      '/api/auth/signup',
      { email: uniqueEmail(), password: 'password1' },
      { 'x-forwarded-proto': 'https', origin: `https://${new URL(srv.url).host}` },
    );
    expect(r.status).toBe(201);
    expect(r.headers.get('set-cookie')).toMatch(/; Secure/);
    const plain = untrusted;
    const r2 = await new Client(plain.url).post(
      '/api/auth/login',
      { email: 'x@example.com', password: 'p' },
      { 'x-forwarded-proto': 'https' },
    );
    expect(r2.headers.get('set-cookie')).toBeNull();
  });
});

describe('--trust-proxy with an explicit list (WAITLIST_TRUST_PROXY)', () => {
  it('trusts only the listed proxies', async () => {
    const { joinFrom } = await setup([], { WAITLIST_TRUST_PROXY: '127.0.0.1/32, 203.0.113.0/24' });
    expect(await joinFrom({ 'x-forwarded-for': '8.8.8.8, 203.0.113.20' })).toEqual({ ip: '8.8.8.8', country: 'US' });
    // 10.0.0.2 is not in the list, so it is the client as far as we can tell.
    expect(await joinFrom({ 'x-forwarded-for': '8.8.8.8, 10.0.0.2' })).toEqual({ ip: '10.0.0.2', country: null });
  });

  it('refuses to start with a malformed list', async () => {
    const r = await execa('node', [BIN, 'serve', '--port', '0', '--trust-proxy', '10.0.0.0/99'], { reject: false, timeout: 15_000 });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/trust-proxy/);
  });
});
