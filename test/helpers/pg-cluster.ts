// A throwaway PostgreSQL cluster for tests that stop and start the database (never the shared one):
// initdb into a temp directory, pg_ctl on a free port, the socket in the same directory. As root the
// binaries run as the `postgres` OS user (PostgreSQL refuses to run as root).
import { execa } from 'execa';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** The newest /usr/lib/postgresql/<v>/bin holding initdb and pg_ctl, or undefined. */
export function pgBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** Why a throwaway cluster cannot be made here, or undefined when it can. */
export function clusterUnavailableReason(): string | undefined {
  if (!pgBinDir()) return 'PostgreSQL server binaries (initdb, pg_ctl under /usr/lib/postgresql/<version>/bin) are not installed';
  if (userInfo().uid === 0) {
    if (!existsSync('/usr/sbin/runuser')) return 'running as root without runuser to become the postgres user';
    const passwd = existsSync('/etc/passwd') ? readFileSync('/etc/passwd', 'utf8') : '';
    if (!/^postgres:/m.test(passwd)) return 'running as root and there is no postgres OS user to run PostgreSQL as';
  }
  return undefined;
}

/** A free TCP port on 127.0.0.1 (closed again before returning). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface Cluster {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<db> */
  url(db?: string, user?: string): string;
  start(): Promise<void>;
  /** fast: disconnect clients and shut down cleanly; immediate: like a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  destroy(): Promise<void>;
  /** The postmaster's and its children's process ids (to SIGSTOP a "frozen" database). */
  pids(): Promise<number[]>;
}

/** Creates and starts a cluster (about a second); `settings` go to postgres as -c name=value. */
export async function startCluster(settings: Record<string, string | number> = {}): Promise<Cluster> {
  const bin = pgBinDir()!;
  const dir = mkdtempSync(join(tmpdir(), 'waitlist-pg-'));
  const asRoot = userInfo().uid === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot ? execa('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]) : execa(join(bin, cmd), args);
  if (asRoot) {
    const { uid, gid } = await pgIds();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  await run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions']);
  const port = await freePort();
  const opts = { listen_addresses: '127.0.0.1', port, unix_socket_directories: dir, fsync: 'off', ...settings };
  const o = Object.entries(opts)
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
  const log = join(dir, 'log');
  const cluster: Cluster = {
    port,
    url: (db = 'postgres', user = 'postgres') => `postgres://${user}@127.0.0.1:${port}/${db}`,
    start: async () => {
      await run('pg_ctl', ['-D', data, '-o', o, '-l', log, '-w', '-t', '30', 'start']);
    },
    stop: async (mode = 'fast') => {
      await run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
    },
    pids: async () => {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      // Its children from /proc (field 4 of /proc/<pid>/stat is the parent; the name before may hold spaces).
      const children = readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .filter((d) => {
          try {
            const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
            return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
          } catch {
            return false; // gone meanwhile
          }
        })
        .map(Number);
      return [postmaster, ...children];
    },
    destroy: async () => {
      await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

async function pgIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([execa('id', ['-u', 'postgres']), execa('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
}
