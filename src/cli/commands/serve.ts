// `waitlist serve`: the HTTP server. Every flag has an env var; flags win.
import { Command, Option } from 'commander';
import { addDbOptions, dbConfig } from './db-options.js';

const envOn = (name: string) => ['1', 'true', 'yes', 'on'].includes((process.env[name] ?? '').toLowerCase());

function intArg(name: string, min: number, max: number) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
    return n;
  };
}

export function registerServe(program: Command) {
  const cmd = program
    .command('serve')
    .description('Run the waitlist server (join endpoint, management API, dashboard)')
    .addOption(new Option('--port <port>', 'port to listen on; 0 picks a free one (env PORT)').default(process.env.PORT ?? '8080'))
    .addOption(new Option('--host <host>', 'address to bind (env HOST)').default(process.env.HOST || '127.0.0.1'))
    .option('--open-signup', 'let anyone create an account, not only the first user (env WAITLIST_OPEN_SIGNUP=1)', envOn('WAITLIST_OPEN_SIGNUP'))
    .option('--trust-proxy', 'take the client IP from X-Forwarded-For set by a proxy on a private network (env WAITLIST_TRUST_PROXY=1)', envOn('WAITLIST_TRUST_PROXY'))
    .option('--no-rate-limit', 'turn join rate limiting off, e.g. for benchmarks (env WAITLIST_RATE_LIMIT=off)')
    .addOption(new Option('--join-limit <n>', 'joins allowed per client IP per project per window (env WAITLIST_JOIN_LIMIT)').default(process.env.WAITLIST_JOIN_LIMIT ?? '60'))
    .addOption(new Option('--join-window <seconds>', 'rate-limit window in seconds (env WAITLIST_JOIN_WINDOW)').default(process.env.WAITLIST_JOIN_WINDOW ?? '60'))
    .addHelpText(
      'after',
      `
Examples:
  $ waitlist serve                                  # http://127.0.0.1:8080, ./waitlist.db
  $ waitlist serve --port 3000 --db /var/lib/waitlist/waitlist.db
  $ waitlist serve --host 0.0.0.0 --trust-proxy     # behind nginx on the same machine
  $ DATABASE_URL=postgres://user@db/waitlist waitlist serve`,
    );
  addDbOptions(cmd).action(async (opts) => {
    const { runServe } = await import('./serve-run.js');
    await runServe({
      ...dbConfig(opts),
      port: intArg('--port', 0, 65535)(opts.port),
      host: opts.host,
      openSignup: Boolean(opts.openSignup),
      trustProxy: Boolean(opts.trustProxy),
      rateLimit: opts.rateLimit !== false && (process.env.WAITLIST_RATE_LIMIT ?? '').toLowerCase() !== 'off',
      joinLimit: intArg('--join-limit', 1, 1_000_000)(opts.joinLimit),
      joinWindowSec: intArg('--join-window', 1, 86_400)(opts.joinWindow),
    });
  });
}
