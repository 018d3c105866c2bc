// Slow clients: headers trickled byte by byte, or a body that never finishes, are cut off by the
// header and request timeouts, while other clients keep being served.
import { describe, expect, it } from 'vitest';
import type { Socket } from 'node:net';
import { Client, postJoin, projectWithKey, signedUp, uniqueEmail, useServer } from '../helpers/server.js';
import { openSocket, raw } from '../helpers/raw.js';

const srv = useServer({ args: ['--headers-timeout', '2', '--request-timeout', '4'] });

describe('slowloris', () => {
  it('a client trickling its headers is cut off after the headers timeout', async () => {
    const head = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(200)}`;
    let i = 0;
    const r = await raw(srv.url, 'G', { feed: () => (i < head.length ? (head[++i] ?? '') : 'a'), everyMs: 100, waitMs: 10_000 });
    expect(r.closed).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(1900);
    expect(r.ms).toBeLessThan(4500);
    expect(r.text).not.toMatch(/HTTP\/1\.1 200/);
  });

  it('a client trickling its body is cut off after the request timeout, nothing stored', async () => {
    const owner = await signedUp(srv.url);
    const p = await projectWithKey(owner);
    const email = uniqueEmail('slowbody');
    const body = JSON.stringify({ email, name: 'x'.repeat(100) });
    let i = 0;
    const r = await raw(
      srv.url,
      `POST /v1/waitlist/${p.slug}/join HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${p.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      { feed: () => (i < body.length - 1 ? body[i++]! : ''), everyMs: 200, waitMs: 10_000 },
    );
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(6500);
    expect(r.text).not.toMatch(/HTTP\/1\.1 (2|5)\d\d/);
    // Answered 408 in the error envelope (Node's own answer had no body).
    expect(r.status).toBe(408);
    expect(JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4)).error).toEqual({ code: 'request_timeout' });
    expect((await owner.get(`/api/project/${p.projectId}/waitlist?search=slowbody`)).body.data.total).toBe(0);
  });

  it('100 idle half-open connections do not stop others being served, and are all closed', async () => {
    const sockets: Socket[] = [];
    let closed = 0;
    for (let i = 0; i < 100; i++) {
      const s = await openSocket(srv.url);
      s.on('error', () => undefined);
      s.on('close', () => closed++);
      s.resume();
      s.write('POST /v1/waitlist/x/join HTTP/1.1\r\nHost: x\r\n');
      sockets.push(s);
    }
    const t = Date.now();
    expect((await new Client(srv.url).get('/healthz')).status).toBe(200);
    expect(Date.now() - t).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 4000));
    expect(closed).toBe(100);
    for (const s of sockets) s.destroy();
    expect((await postJoin(srv.url, 'x', undefined, {})).status).toBe(401);
  });
});
