// The published package (issue 10, item 14): `npm pack` (its prepack builds dist/), then
// `npx --yes --package=<tarball> waitlist serve --port 0` in an empty directory serves the dashboard and
// takes a join. The tarball's dependencies come from the npm registry (or npm's cache): skipped, with a
// message, when the registry cannot be reached.
//
// Speed: `npm pack` runs in a copy of the sources (its prepack deletes and rebuilds dist/, which the
// other test files are using), and better-sqlite3's install gets this repository's compiled binary from a
// local prebuild mirror instead of compiling SQLite for two minutes. The mirror serves only the exact
// version, Node ABI and platform that binary was built for; anything else is a 404 and npm compiles.
import { execa, execaSync, type ResultPromise } from 'execa';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, postJoin, projectWithKey, ROOT } from '../helpers/server.js';

async function registryUrl(): Promise<string> {
  const r = await execa('npm', ['config', 'get', 'registry'], { reject: false });
  return (r.exitCode === 0 && String(r.stdout).trim()) || 'https://registry.npmjs.org/';
}

async function reachable(url: string): Promise<boolean> {
  try {
    const r = await fetch(new URL('-/ping', url.endsWith('/') ? url : `${url}/`), { signal: AbortSignal.timeout(5000) });
    return r.status < 500;
  } catch {
    return false;
  }
}

const REGISTRY = await registryUrl();
const ONLINE = await reachable(REGISTRY);
if (!ONLINE)
  console.warn(
    `\n  Package test SKIPPED: the npm registry (${REGISTRY}) is unreachable, so npx cannot install the tarball's dependencies.\n`,
  );

/** Serves better-sqlite3's compiled binary in prebuild-install's layout, for that exact build only. */
function prebuildMirror(dir: string): Promise<Server> {
  const pkgDir = join(ROOT, 'node_modules/better-sqlite3');
  const version = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tarball = join(dir, name);
  const built = join(pkgDir, 'build/Release/better_sqlite3.node');
  // The prebuild archive holds build/Release/better_sqlite3.node (system tar).
  if (existsSync(built)) execaSync('tar', ['-czf', tarball, 'build/Release/better_sqlite3.node'], { cwd: pkgDir });
  const server = createServer((req, res) => {
    if (req.url === `/v${version}/${name}` && existsSync(tarball)) {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      res.end(readFileSync(tarball));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** npx installs into <npm cache>/_npx/<hash>; the directories holding this package, to remove afterwards. */
function npxDirsWithWaitlist(cache: string): Set<string> {
  const base = join(cache, '_npx');
  if (!existsSync(base)) return new Set();
  return new Set(
    readdirSync(base)
      .map((d) => join(base, d))
      .filter((d) => existsSync(join(d, 'node_modules/waitlist/package.json'))),
  );
}

describe.skipIf(!ONLINE)('npm pack + npx waitlist serve', () => {
  const work = mkdtempSync(join(tmpdir(), 'waitlist-pack-'));
  const stage = join(work, 'source');
  const empty = join(work, 'empty');
  let tarball = '';
  let mirror: Server | undefined;
  let proc: ResultPromise | undefined;
  let cache = '';
  let npxBefore = new Set<string>();
  let out = '';

  beforeAll(async () => {
    // The files a clean checkout has that the build needs; node_modules shared by a link.
    for (const f of [
      'package.json',
      'tsconfig.json',
      'vite.config.ts',
      'README.md',
      'LICENSE',
      'src',
      'web',
      'bin',
      'migrations',
      'scripts',
      'widget',
    ]) {
      cpSync(join(ROOT, f), join(stage, f), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'), 'dir');
    const packed = await execa('npm', ['pack', '--json', '--pack-destination', work], { cwd: stage });
    const [info] = JSON.parse(String(packed.stdout)) as [{ filename: string }];
    tarball = join(work, info.filename);
    mkdirSync(empty);
    cache = String((await execa('npm', ['config', 'get', 'cache'])).stdout).trim();
    npxBefore = npxDirsWithWaitlist(cache);
    mirror = await prebuildMirror(work);
  }, 180_000);

  afterAll(async () => {
    if (proc?.pid && proc.exitCode === null) {
      try {
        process.kill(-proc.pid, 'SIGTERM'); // npx and the server it started: one process group
      } catch {}
      await proc;
    }
    mirror?.close();
    rmSync(work, { recursive: true, force: true });
    for (const d of npxDirsWithWaitlist(cache)) if (!npxBefore.has(d)) rmSync(d, { recursive: true, force: true });
  });

  it('packs dist (with the dashboard), migrations, bin, README and LICENSE, and no sources or maps', async () => {
    const list = String((await execa('tar', ['-tzf', tarball])).stdout)
      .split('\n')
      .map((l) => l.replace(/^package\//, ''));
    for (const f of ['bin/waitlist.js', 'dist/cli/main.js', 'dist/server/serve.js', 'dist/web/index.html', 'LICENSE', 'README.md']) {
      expect(list).toContain(f);
    }
    expect(list).toContain('migrations/sqlite/meta/_journal.json');
    expect(list).toContain('migrations/pg/meta/_journal.json');
    expect(list.some((f) => /^dist\/web\/assets\/index-.*\.js$/.test(f))).toBe(true);
    expect(list.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.map'))).toEqual([]);
  });

  it('runs with npx in an empty directory: serves the dashboard and takes a join', async () => {
    const mirrorUrl = `http://127.0.0.1:${(mirror!.address() as AddressInfo).port}`;
    // The user's environment, without anything that would point the server at another database.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'WAITLIST_DB', 'PORT', 'HOST'].includes(k) && !k.startsWith('npm_')),
    );
    proc = execa('npx', ['--yes', '--prefer-offline', `--package=${tarball}`, 'waitlist', 'serve', '--port', '0'], {
      cwd: empty,
      env: { ...env, npm_config_better_sqlite3_binary_host: mirrorUrl },
      extendEnv: false,
      detached: true,
      reject: false,
      all: true,
      buffer: false,
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npx waitlist serve did not start:\n${out}`)), 240_000);
      proc!.all!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      void proc!.then(() => reject(new Error(`npx waitlist serve exited:\n${out}`)));
    });
    // The default database, in the directory it was started from.
    await expect.poll(() => existsSync(join(empty, 'waitlist.db'))).toBe(true);

    // The dashboard and its assets, from the package's dist/web.
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const js = await fetch(new URL(script!, url));
    expect(js.status).toBe(200);
    expect((await js.text()).length).toBeGreaterThan(1000);

    // The first-account hint names a command that works for an npx user.
    await expect.poll(() => out).toContain(`npx waitlist signup --server ${url}`);

    // An account, a project, a key and a join.
    const owner = new Client(url);
    expect((await owner.post('/api/auth/signup', { email: 'owner@example.com', password: 'a long password' })).status).toBe(201);
    const p = await projectWithKey(owner, 'Packed');
    const joined = await postJoin(url, p.slug, p.key, { email: 'ada@example.com' });
    expect(joined.status).toBe(201);
    const list = await owner.get(`/api/project/${p.projectId}/waitlist`);
    expect(list.body.data.items.map((e: { email: string }) => e.email)).toEqual(['ada@example.com']);
  }, 300_000);
});
