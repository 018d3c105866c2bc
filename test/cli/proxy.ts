// A bad network between the CLI and a real server, for the tests of what the CLI does when the
// server is slow, silent or goes away: an HTTP proxy in front of a real `waitlist serve` that passes
// each request on, or, as the test decides per request, never answers, cuts the connection, holds the
// answer's headers or holds its body. Nothing is faked: every answer that arrives is the server's.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export type Fault =
  /** pass the request on and the answer back */
  | 'pass'
  /** accept the request and never answer (the connection stays open) */
  | 'silent'
  /** close the connection without an answer (a server killed mid-walk) */
  | 'cut'
  /** pass it on, but send the answer's status and headers only after `ms` */
  | { holdHeadersMs: number }
  /** pass the headers back at once, but the body only after `ms` */
  | { holdBodyMs: number };

export interface Proxy {
  url: string;
  /** Decides what happens to each request (its method and path with query); `pass` until set. */
  rule: (req: IncomingMessage) => Fault;
  /** Requests seen, as `METHOD /path?query`. */
  seen: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A proxy to `target()` (read per request: the server starts in a hook), closed after the file's tests. */
export function useProxy(target: () => string): Proxy {
  const proxy: Proxy = { url: '', rule: () => 'pass', seen: [] };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    proxy.seen.push(`${req.method} ${req.url}`);
    const fault = proxy.rule(req);
    if (fault === 'silent') return;
    if (fault === 'cut') return void req.socket.destroy();
    const up = new URL(target());
    const upstream = request(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host } },
      async (answer) => {
        if (typeof fault === 'object' && 'holdHeadersMs' in fault) await sleep(fault.holdHeadersMs);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        if (typeof fault === 'object' && 'holdBodyMs' in fault) await sleep(fault.holdBodyMs);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return Object.defineProperty(proxy, 'url', {
    get: () => {
      if (!url) throw new Error('useProxy: not listening yet; read url inside a test');
      return url;
    },
  });
}
