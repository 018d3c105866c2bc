// One webhook attempt against a real HTTP receiver: the status line decides, the body is never waited
// for or downloaded (a receiver that answers 200 and then trickles, or streams megabytes, has still
// acknowledged), and a non-2xx is a failure with its code. The webhooks tests cover the rest.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret, sendWebhook } from '../../src/core/webhook-send.js';

let server: Server;
let base: string;
let streamed = 0; // bytes of the endless body the receiver managed to write

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/slow') {
      // 200 at once, then one byte every 200 ms, for ever.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x');
      const t = setInterval(() => res.write('x'), 200);
      res.on('close', () => clearInterval(t));
    } else if (req.url === '/huge') {
      // 200, then as much as the client will take.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024);
      const pump = () => {
        while (!res.destroyed && streamed < 200 * 1024 * 1024) {
          streamed += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    } else {
      res.writeHead(503).end('busy');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('one webhook attempt', () => {
  const secret = newWebhookSecret();
  const send = (path: string) => sendWebhook(`${base}${path}`, [secret], 'evt_x', '{"type":"ping"}', true, 3_000);

  it('a 200 followed by a body that never ends is delivered, not a timeout', async () => {
    expect(await send('/slow')).toEqual({ ok: true, statusCode: 200, error: null });
  });

  it('a 200 followed by a huge body is delivered without downloading it', async () => {
    expect(await send('/huge')).toEqual({ ok: true, statusCode: 200, error: null });
    await new Promise((r) => setTimeout(r, 200));
    expect(streamed).toBeLessThan(20 * 1024 * 1024); // a socket's buffers, not 200 MB
  });

  it('a 503 is a failure naming the code', async () => {
    expect(await send('/busy')).toEqual({ ok: false, statusCode: 503, error: 'HTTP 503' });
  });
});
