// The shell of the server's own HTML pages for people (hosted sign-up page, confirm, status and leave
// pages under /w/:slug). Pages are small, self-contained (no asset from the internet: styles inline with a
// CSP hash-free nonce), readable at phone width and usable with JavaScript off.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Tagged template whose interpolations are HTML-escaped unless wrapped in `raw()`. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += renderValue(v) + (strings[i + 1] ?? '');
  });
  return new Raw(out);
}

/** Already-safe HTML. */
export class Raw {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}
export const raw = (s: string) => new Raw(s);

function renderValue(v: unknown): string {
  if (v instanceof Raw) return v.value;
  if (Array.isArray(v)) return v.map(renderValue).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v));
}

const BASE_CSS = `
:root{color-scheme:light dark;--fg:#1b1b1f;--bg:#fff;--muted:#5c5c66;--accent:#3b5bdb;--on-accent:#fff;--err:#c92a2a;--card:#f6f7f9;--line:#d9dce1}
@media (prefers-color-scheme:dark){:root{--fg:#eceef2;--bg:#15161a;--muted:#a4a8b3;--accent:#8ea6ff;--on-accent:#0b1020;--err:#ff8787;--card:#1f2127;--line:#33363e}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:34rem;margin:0 auto;padding:2rem 1.25rem}h1{font-size:1.6rem;line-height:1.25;margin:0 0 .5rem}
p{margin:.5rem 0}.muted{color:var(--muted)}.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1.25rem;margin:1.25rem 0}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}input,select,button{font:inherit}
input[type=text],input[type=email],input[type=number],select{width:100%;padding:.6rem .7rem;border:1px solid var(--line);
  border-radius:.5rem;background:var(--bg);color:var(--fg)}
button{margin-top:1rem;padding:.65rem 1.1rem;border:0;border-radius:.5rem;background:var(--accent);color:var(--on-accent);font-weight:600;cursor:pointer}
button:focus-visible,input:focus-visible,select:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.error{color:var(--err)}.big{font-size:2.4rem;font-weight:700}code,.code{font-family:ui-monospace,monospace;word-break:break-all}
`;

export interface PageOptions {
  title: string;
  body: Raw;
  /** Extra CSS for this page (inline, covered by the page's nonce). */
  css?: string;
  /** Inline script for this page (progressive enhancement only: the page works without it). */
  script?: string;
  status?: number;
  /** Extra `connect-src`/`worker-src` allowances are not needed: pages talk only to their own origin. */
  lang?: string;
}

/** Sends a complete HTML page with a strict CSP (own origin only; inline style/script by nonce). */
export function sendPage(res: ServerResponse, opts: PageOptions): void {
  const nonce = randomBytes(16).toString('base64');
  const doc = `<!doctype html><html lang="${escapeHtml(opts.lang ?? 'en')}"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(opts.title)}</title>
<style nonce="${nonce}">${BASE_CSS}${opts.css ?? ''}</style></head><body><main>${opts.body.value}</main>${
    opts.script ? `<script nonce="${nonce}">${opts.script}</script>` : ''
  }</body></html>`;
  res.writeHead(opts.status ?? 200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(doc),
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}' 'self'`,
      "connect-src 'self'",
      "worker-src 'self' blob:",
      "img-src 'self' data:",
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  });
  res.end(doc);
}
