// How `waitlist serve` serves the built dashboard, over plain HTTP (runs without a browser):
// `/` and `/assets/*` only, a strict CSP, no inline script or style, everything else the JSON 404.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, useServer } from '../helpers/server.js';

const srv = useServer();

const assets = readdirSync(join(ROOT, 'dist/web/assets'));
const asset = (ext: string) => assets.find((f) => f.endsWith(ext))!;

describe('dashboard files', () => {
  it('serves index.html at / with a strict CSP and no inline script or style', async () => {
    const r = await fetch(srv.url + '/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    const csp = r.headers.get('content-security-policy')!;
    for (const d of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ]) {
      expect(csp).toContain(d);
    }
    expect(csp).not.toContain('unsafe-inline');
    const html = await r.text();
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/[^"]+\.js"><\/script>/);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // every script has a src
    expect(html).not.toMatch(/<style|style=/);
    expect(html).not.toMatch(/https?:\/\//); // nothing from elsewhere
    expect((await fetch(srv.url + '/', { method: 'HEAD' })).status).toBe(200);
  });

  it('serves hashed assets with long caching and the CSP', async () => {
    for (const [ext, type] of [
      ['.js', 'text/javascript'],
      ['.css', 'text/css'],
    ]) {
      const r = await fetch(`${srv.url}/assets/${asset(ext!)}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain(type);
      expect(r.headers.get('cache-control')).toBe('public,max-age=31536000,immutable');
      expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await r.text()).toBe(readFileSync(join(ROOT, 'dist/web/assets', asset(ext!)), 'utf8'));
    }
  });

  it('the built script loads nothing from other origins', () => {
    const js = readFileSync(join(ROOT, 'dist/web/assets', asset('.js')), 'utf8');
    const css = readFileSync(join(ROOT, 'dist/web/assets', asset('.css')), 'utf8');
    expect(css).not.toMatch(/url\(|@import/);
    expect(js).not.toMatch(/fetch\(\s*["'`]https?:/);
  });

  it('answers every other path with the JSON 404 envelope', async () => {
    for (const path of [
      '/index.html',
      '/projects',
      '/assets/',
      '/assets/missing.js',
      '/assets/../package.json',
      '/favicon.ico',
      '/web/index.html',
    ]) {
      const r = await fetch(srv.url + path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(await r.json()).toMatchObject({ status: 'error', error: { code: 'not_found' } });
    }
    const post = await fetch(srv.url + '/', { method: 'POST' });
    expect(post.status).toBe(404);
    expect(await post.json()).toMatchObject({ status: 'error', error: { code: 'not_found' } });
  });
});
