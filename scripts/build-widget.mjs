// Builds widget/widget.ts into dist/widget.js (one minified IIFE, no dependencies) and FAILS the build
// when it is over 8 KB gzipped: the widget sits on other people's pages and must stay small.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const LIMIT = 8 * 1024;
const out = new URL('../dist/widget.js', import.meta.url).pathname;
await build({
  entryPoints: [new URL('../widget/widget.ts', import.meta.url).pathname],
  outfile: out,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  legalComments: 'none',
  logLevel: 'warning',
});
const raw = readFileSync(out);
const gz = gzipSync(raw, { level: 9 }).length;
const line = `widget.js: ${raw.length} bytes, ${gz} bytes gzipped (limit ${LIMIT})`;
if (gz > LIMIT) {
  console.error(`${line}: TOO BIG`);
  process.exit(1);
}
console.error(line);
