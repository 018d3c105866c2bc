// The web dashboard (built by Vite into dist/web): `/` answers index.html and `/assets/*` the hashed
// files. Nothing else is served from disk, so every other path still answers the JSON 404 envelope.
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import type { NextHandler, Polka } from 'polka';
import sirv from 'sirv';
import { AppError } from '../core/errors.js';
import type { Req } from './context.js';

/** Where the build puts the dashboard (dist/server/static.js → dist/web). */
export const WEB_DIR = resolve(import.meta.dirname, '../web');

/** Strict CSP: the dashboard loads only its own files and talks only to its own origin. */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Mounts the dashboard on the app; without a build, `/` explains how to make one. */
export function dashboardRoutes(app: Polka<Req>, dir = WEB_DIR) {
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) {
    const notBuilt = () => {
      throw new AppError('not_found', 'The dashboard is not built: run `npm run build`');
    };
    app.get('/', notBuilt);
    app.head('/', notBuilt);
    return;
  }
  const index = readFileSync(indexFile);
  const sendIndex = (req: Req, res: ServerResponse) => {
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': index.length,
      'Content-Security-Policy': DASHBOARD_CSP,
      'Cache-Control': 'no-cache',
    });
    res.end(req.method === 'HEAD' ? undefined : index);
  };
  app.get('/', sendIndex);
  app.head('/', sendIndex);

  const assets = sirv(dir, {
    dev: false,
    etag: true,
    dotfiles: false,
    extensions: [],
    // File names carry a content hash: cache them for good.
    maxAge: 31_536_000,
    immutable: true,
    setHeaders: (res) => res.setHeader('Content-Security-Policy', DASHBOARD_CSP),
  });
  app.use((req: Req, res: ServerResponse, next: NextHandler) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && req.path.startsWith('/assets/')) return assets(req, res, next);
    return next();
  });
}
