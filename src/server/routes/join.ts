// The public join endpoint, called from subscribers' browsers with a publishable key.
//   OPTIONS /v1/waitlist/:slug/join   preflight (CORS)
//   POST    /v1/waitlist/:slug/join   joinWaitlist
// Order of checks (CONTRACT.md): key → slug → key's project → body → duplicate → 201.
import type { ServerResponse } from 'node:http';
import type { Polka } from 'polka';
import proxyAddr from 'proxy-addr';
import { joinBody } from '../../contract/schemas.js';
import { joinWaitlist } from '../../core/entries.js';
import { AppError } from '../../core/errors.js';
import { countryOf } from '../../core/geo.js';
import type { Deps, Req } from '../context.js';
import { readJson, send } from '../http.js';

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Retry-After, RateLimit, RateLimit-Policy, X-Request-Id',
};
const PREFLIGHT = {
  ...CORS,
  'Access-Control-Allow-Methods': 'POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Max-Age': '86400',
};

// With --trust-proxy, hops on loopback and private networks are the proxies; the client is the
// right-most X-Forwarded-For address that is not one of them.
const trustPrivate = proxyAddr.compile(['loopback', 'linklocal', 'uniquelocal']);

export function clientIp(req: Req, trustProxy: boolean): string | null {
  const ip = trustProxy ? proxyAddr(req, trustPrivate) : req.socket.remoteAddress;
  if (!ip) return null;
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

const notFoundProject = () => new AppError('not_found', 'Waitlist not found');

export function joinRoutes(app: Polka<Req>, deps: Deps) {
  const { store, options, keys, joinLimiter } = deps;

  app.options('/v1/waitlist/:slug/join', (_req, res: ServerResponse) => {
    res.writeHead(204, PREFLIGHT);
    res.end();
  });

  app.post('/v1/waitlist/:slug/join', async (req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    const key = await keys.verify(req.headers.authorization);
    const project = await store.projectBySlug(req.params.slug!);
    if (!project) throw notFoundProject();
    if (key.projectId !== project.id) {
      throw new AppError('unauthorized', 'This API key belongs to another project', undefined, {
        'WWW-Authenticate': 'Bearer realm="waitlist", error="invalid_token"',
      });
    }
    const ip = clientIp(req, options.trustProxy);
    if (joinLimiter) {
      const headers = await joinLimiter.consume(project.id, ip ?? 'unknown');
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    }
    const body = await readJson(req, joinBody);
    const ua = req.headers['user-agent'];
    const entry = await joinWaitlist(
      store,
      {
        projectId: project.id,
        keyId: key.id,
        ip,
        country: ip ? countryOf(ip) : null,
        userAgent: ua ? ua.slice(0, 512) : null,
      },
      body,
    );
    send(res, 201, 'You are on the waitlist', {
      entryId: entry.id,
      email: entry.email,
      name: entry.name,
      source: entry.source,
      createdAt: new Date(entry.createdAt).toISOString(),
    });
  });
}
