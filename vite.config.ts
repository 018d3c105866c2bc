// Builds the dashboard (web/) into dist/web, served by `waitlist serve` at `/` (src/server/static.ts).
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

const api = process.env.WAITLIST_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: 'web',
  base: '/',
  plugins: [preact()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // Everything is a file under /assets: no inline data the CSP would refuse, no module-preload polyfill.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  // `npx vite` for development: /api goes to a running `waitlist serve` (its Origin check wants its own origin).
  server: { proxy: { '/api': { target: api, changeOrigin: true, headers: { origin: api } } } },
});
