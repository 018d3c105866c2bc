// Serves the API description: GET /openapi.json (the OpenAPI 3.1 document) and GET /docs (it as HTML).
// Both are public and rate limited per client address; the document is built once, on first request.
import { createRequire } from 'node:module';
import type { Polka } from 'polka';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../../core/errors.js';
import { clientIp } from '../client-ip.js';
import type { Deps, Req } from '../context.js';
import { sendPage } from '../pages/html.js';
import { limitKey } from '../ratelimit.js';
import { buildDocument } from './document.js';
import { DOCS_CSS, docsBody } from './page.js';

export { buildDocument } from './document.js';
export { ROUTES } from './routes.js';

/** Requests per minute per client address to /openapi.json and /docs. */
export const DOCS_RATE_LIMIT = 60;

const version = () => (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;

export function openapiRoutes(app: Polka<Req>, deps: Deps) {
  let doc: { json: string; page: ReturnType<typeof docsBody> } | undefined;
  const built = () => {
    if (!doc) {
      const d = buildDocument(version());
      doc = { json: JSON.stringify(d), page: docsBody(d) };
    }
    return doc;
  };
  const limiter = deps.options.rateLimit ? deps.store.rateLimiter({ keyPrefix: 'docs', points: DOCS_RATE_LIMIT, duration: 60 }) : null;
  const limit = async (req: Req) => {
    if (!limiter) return;
    try {
      await limiter.consume(limitKey(clientIp(req, deps.trust) ?? 'unknown'));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const retry = String(Math.max(1, Math.ceil(e.msBeforeNext / 1000)));
      throw new AppError('rate_limited', `Too many requests; try again in ${retry} s`, undefined, { 'Retry-After': retry });
    }
  };

  app.get('/openapi.json', async (req, res) => {
    await limit(req);
    const body = built().json;
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-cache',
      // Generators and viewers elsewhere may fetch it: it holds nothing secret.
      'Access-Control-Allow-Origin': '*',
    });
    res.end(body);
  });

  app.get('/docs', async (req, res) => {
    await limit(req);
    sendPage(res, { title: 'Waitlist API', body: built().page, css: DOCS_CSS });
  });
}
