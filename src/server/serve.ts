// `waitlist serve`: open the database (migrating it), listen, and shut down gracefully on signals.
import { statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, Server as NetServer, type Socket } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { useServerSecret } from '../core/server-keys.js';
import { openStore, type DbConfig, type Store } from '../db/index.js';
import { KeyVerifier } from '../core/keys.js';
import { purgePending } from '../core/lifecycle.js';
import { Dispatcher, type DispatcherOptions, LEASE_MS } from '../core/dispatcher.js';
import { Mailer, SEND_DEADLINE_MS } from '../core/mailer.js';
import { createApp } from './app.js';
import type { ServerOptions } from './context.js';
import { answerClientError, answerRequestTimeout, expectationFailed } from './client-error.js';
import { overdue, requestStarted } from './deadline.js';
import { compileTrust } from './client-ip.js';
import { AuthLimiter, JoinLimiter } from './ratelimit.js';
import { HostPolicy } from './hosts.js';
import { lockDatabase } from '../db/sqlite/lock.js';

export interface ServeConfig extends ServerOptions, DbConfig {
  port: number;
  host: string;
  /** Seconds between webhook/email attempts (default: RETRY_SCHEDULE_SEC in src/core/dispatcher.ts). */
  retrySchedule?: number[];
  /** Shutdown: how long idle keep-alive connections stay open (default IDLE_GRACE_MS; env WAITLIST_SHUTDOWN_GRACE). */
  idleGraceMs?: number;
  /** The operator's secret mixed into the server keys (env WAITLIST_SECRET; src/core/server-keys.ts). */
  serverSecret?: string;
}

/**
 * Once shutdown begins, how long an idle keep-alive connection stays open before it is closed: a client
 * may have sent its next request on it just before the signal, still in the network or in the kernel's
 * buffer, not read yet. Closing the socket then would reset it (ECONNRESET) and lose that request; within
 * this grace it is read and answered (with `Connection: close`). New connections are refused at once.
 */
export const IDLE_GRACE_MS = 300;

/** How long an idle keep-alive connection stays open (the server's `Keep-Alive: timeout=30`). */
export const KEEP_ALIVE_MS = 30_000;

const LATEST = Symbol('latest response');
type TrackedSocket = Socket & { [LATEST]?: ServerResponse };

export interface RunningServer {
  url: string;
  server: Server;
  /** The Polka app (tests list its routes). */
  app: ReturnType<typeof createApp>;
  hasUsers: boolean;
  /** Stops accepting before it returns; resolves once requests in flight are answered and the database is closed. */
  close(): Promise<void>;
}

/** Starts the server; resolves once it listens. */
export async function startServer(config: ServeConfig): Promise<RunningServer> {
  const hosts = new HostPolicy({ publicUrl: config.publicUrl, allowedHosts: config.allowedHosts });
  // One SQLite file, one server: limits and the join batcher live in this process's memory.
  const lock = config.databaseUrl ? undefined : await lockDatabase(config.file);
  let store: Store;
  try {
    store = await openDatabase(config);
    if (config.serverSecret) useServerSecret(store, config.serverSecret);
    await store.checkWritable();
  } catch (err) {
    lock?.release();
    throw err;
  }
  // A send ends (aborted) well before its claim's lease does, so a slow SMTP server gets no second copy.
  const deadlineMs = Math.min(SEND_DEADLINE_MS, LEASE_MS - 5_000);
  const mailer = config.smtpUrl ? new Mailer({ smtpUrl: config.smtpUrl, from: config.mailFrom || 'waitlist@localhost', deadlineMs }) : null;
  const dispatchOpts: DispatcherOptions = {
    mailer,
    allowPrivateWebhooks: Boolean(config.allowPrivateWebhooks),
    publicUrl: config.publicUrl ?? '',
    ...(config.retrySchedule ? { retrySchedule: config.retrySchedule } : {}),
    log: (line) => process.stderr.write(`${line}\n`),
  };
  const dispatcher = new Dispatcher(store, dispatchOpts);
  const deps = {
    hosts,
    dispatcher,
    mailer,
    publicBaseUrl: () => dispatchOpts.publicUrl,
    store,
    options: config,
    keys: new KeyVerifier(store),
    trust: compileTrust(config.trustProxy),
    joinLimiter: config.rateLimit ? new JoinLimiter(store, config.joinLimit, config.joinWindowSec) : null,
    authLimiter: config.rateLimit ? new AuthLimiter(store, config) : null,
  };
  const app = createApp(deps);
  // Unconfirmed (pending) entries past their project's pendingPurgeDays are erased hourly.
  const purge = () => void purgePending(store).catch((e: Error) => console.error('pending purge failed:', e.message));
  const purger = setInterval(purge, 3_600_000);
  purger.unref();
  setTimeout(purge, 5_000).unref();
  const handle = app.handler as unknown as (req: IncomingMessage, res: ServerResponse) => void;
  let closing: Promise<void> | undefined;
  /**
   * Open connections, each with its latest response, so that shutdown can answer the ones being
   * prepared with `Connection: close` too. Tracked per connection (a listener each), and per request
   * only by a property store: a 'close' listener on every response cost ~10 % of the join throughput
   * (docs/performance.md, round eighteen).
   */
  const sockets = new Set<Socket>();
  // Slowloris: headers must arrive within headersTimeout (Node's check, every second instead of its
  // default 30 s), and the whole request within requestTimeout from then (deadline.ts, swept below:
  // Node's own requestTimeout is off, so that an import may be given --import-timeout instead).
  const requestTimeoutMs = (config.requestTimeoutSec ?? 30) * 1000;
  const server = createServer(
    {
      headersTimeout: Math.min(config.headersTimeoutSec ?? 10, config.requestTimeoutSec ?? 30) * 1000,
      requestTimeout: 0,
      connectionsCheckingInterval: 1000,
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => {
      requestStarted(req, Date.now());
      (req.socket as TrackedSocket)[LATEST] = res;
      // Shutting down: answer what is in flight, then let keep-alive connections go.
      if (closing) res.setHeader('Connection', 'close');
      handle(req, res);
    },
  );
  // A connection's latest request still arriving past its deadline is answered 408 and closed.
  const deadlines = setInterval(() => {
    const now = Date.now();
    for (const socket of sockets) {
      const res = (socket as TrackedSocket)[LATEST];
      if (res && overdue(res.req, now, requestTimeoutMs)) answerRequestTimeout(socket, res.headersSent);
    }
  }, 1000);
  deadlines.unref();
  server.on('clientError', answerClientError);
  // An `Expect` other than 100-continue: answered here (Node's own answer comes before any 'request'
  // event, so no deadline would cover the connection), under the same deadline as any request.
  server.on('checkExpectation', (req, res) => {
    requestStarted(req, Date.now());
    (req.socket as TrackedSocket)[LATEST] = res;
    expectationFailed(res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // An idle keep-alive connection stays open 30 s (Node's default is 5 s): a client whose event loop was
  // busy for a few seconds (a script running blocking child processes between requests) would otherwise
  // send its next request on a connection the server had just closed, and see "other side closed".
  // Proxies in front keep their own idle timeout below it (deploy/nginx.conf: 4 s).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    // The port is taken (or the host is not this machine's): close what was opened, or an open
    // PostgreSQL pool would keep the process alive after the error is printed.
    clearInterval(purger);
    clearInterval(deadlines);
    mailer?.close();
    await store.close().catch(() => undefined);
    lock?.release();
    throw err;
  }
  const addr = server.address() as AddressInfo;
  hosts.bind();
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  dispatchOpts.publicUrl = (config.publicUrl ?? `http://${host}:${addr.port}`).replace(/\/+$/, '');
  dispatcher.start(); // delivers what a previous run left undelivered, too
  return {
    url: `http://${host}:${addr.port}`,
    server,
    app,
    hasUsers: (await store.countUsers()) > 0,
    close() {
      closing ??= (async () => {
        // Requests already being answered say `Connection: close` too (unless their headers went out),
        // so their clients send nothing more on a connection that is about to close.
        for (const socket of sockets) {
          const res = (socket as TrackedSocket)[LATEST];
          if (res && !res.headersSent && !res.writableEnded) res.setHeader('Connection', 'close');
        }
        await new Promise<void>((resolve) => {
          let done = false;
          let sweep: NodeJS.Timeout | undefined;
          // In the check phase, after the poll phase: bytes already in a socket's buffer are parsed
          // first, and a connection with a request in it is no longer idle.
          const closeIdle = () =>
            setImmediate(() => {
              if (!done) server.closeIdleConnections();
            });
          // Idle keep-alive connections go after IDLE_GRACE_MS; busy ones then as soon as their response
          // is done (swept, so a finished keep-alive socket does not hold the exit for keepAliveTimeout).
          const grace = setTimeout(() => {
            closeIdle();
            sweep = setInterval(closeIdle, 50);
          }, config.idleGraceMs ?? IDLE_GRACE_MS);
          // Stop accepting at once. net's close, not http's: since Node 19 http's also closes every idle
          // connection right away, which would reset a request sent on one but not read yet.
          NetServer.prototype.close.call(server, () => {
            done = true;
            clearTimeout(grace);
            clearInterval(sweep);
            resolve();
          });
        });
        clearInterval(purger);
        clearInterval(deadlines);
        await dispatcher.stop();
        mailer?.close();
        await store.close();
        lock?.release();
      })();
      return closing;
    },
  };
}

/**
 * Opens (and migrates) the database. A SQLite file that cannot be opened is named in the error: SQLite
 * says only "unable to open database file" or "file is not a database".
 */
async function openDatabase(config: ServeConfig): Promise<Store> {
  try {
    return await openStore(config);
  } catch (err) {
    if (config.databaseUrl || config.file === ':memory:' || config.file === '') throw err;
    const path = resolvePath(config.file);
    const message = err instanceof Error ? err.message : String(err);
    if (message.includes(path)) throw err;
    let hint = '';
    try {
      if (statSync(path).isDirectory()) hint = ' (it is a directory; --db names the database file, like --db <dir>/waitlist.db)';
    } catch {
      /* missing or unreadable: SQLite's message says enough */
    }
    throw new Error(`cannot open the database ${path}: ${message}${hint}`, { cause: err });
  }
}
