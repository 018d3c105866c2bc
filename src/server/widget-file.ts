// Serves dist/widget.js (built by scripts/build-widget.mjs): read and gzipped once, cacheable, loadable
// from any origin.
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AppError } from '../core/errors.js';
import type { Req } from './context.js';

/** dist/server/widget-file.js → dist/widget.js */
export const WIDGET_FILE = resolve(import.meta.dirname, '../widget.js');

export function widgetHandler(file = WIDGET_FILE) {
  let plain: Buffer | undefined;
  let gz: Buffer | undefined;
  return (req: Req, res: ServerResponse) => {
    if (!plain) {
      if (!existsSync(file)) throw new AppError('not_found', 'The widget is not built: run `npm run build`');
      plain = readFileSync(file);
      gz = gzipSync(plain, { level: 9 });
    }
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? gz! : plain;
    res.writeHead(200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Length': body.length,
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      Vary: 'Accept-Encoding',
      'Cache-Control': 'public, max-age=300',
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
