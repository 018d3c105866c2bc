// `waitlist serve`: the HTTP server. Every flag has an env var; flags win.
import { type Command, Option } from 'commander';
import { CliError, EXIT } from '../errors.js';
import { intValue } from '../options.js';
import { addDbOptions, dbConfig } from './db-options.js';

const envOn = (name: string) => ['1', 'true', 'yes', 'on'].includes((process.env[name] ?? '').toLowerCase());

interface IntSpec {
  env: string;
  fallback: number;
  min: number;
  max: number;
}

/** An integer flag whose default comes from an env var; a flag value is checked by commander (exit 2). */
function intOption(flags: string, description: string, spec: IntSpec) {
  return new Option(flags, `${description} (env ${spec.env})`)
    .argParser(intValue(spec.min, spec.max))
    .default(process.env[spec.env] || String(spec.fallback));
}

/** The value of an intOption: parsed by commander, or the env var's text checked by the same parser. */
function intOf(value: number | string, flag: string, spec: IntSpec): number {
  if (typeof value === 'number') return value;
  try {
    return intValue(spec.min, spec.max)(value);
  } catch (err) {
    throw new CliError(`${spec.env}=${value} (for ${flag}) ${(err as Error).message}`, EXIT.usage);
  }
}

const INTS = {
  port: { env: 'PORT', fallback: 8080, min: 0, max: 65535 },
  joinLimit: { env: 'WAITLIST_JOIN_LIMIT', fallback: 60, min: 1, max: 1_000_000 },
  joinWindow: { env: 'WAITLIST_JOIN_WINDOW', fallback: 60, min: 1, max: 86_400 },
  loginLimit: { env: 'WAITLIST_LOGIN_LIMIT', fallback: 5, min: 1, max: 1000 },
  loginMaxBlock: { env: 'WAITLIST_LOGIN_MAX_BLOCK', fallback: 900, min: 1, max: 86_400 },
  loginIpLimit: { env: 'WAITLIST_LOGIN_IP_LIMIT', fallback: 100, min: 1, max: 1_000_000 },
  loginIpWindow: { env: 'WAITLIST_LOGIN_IP_WINDOW', fallback: 900, min: 1, max: 86_400 },
  signupLimit: { env: 'WAITLIST_SIGNUP_LIMIT', fallback: 100, min: 1, max: 1_000_000 },
  headersTimeout: { env: 'WAITLIST_HEADERS_TIMEOUT', fallback: 10, min: 1, max: 600 },
  requestTimeout: { env: 'WAITLIST_REQUEST_TIMEOUT', fallback: 30, min: 1, max: 3600 },
} satisfies Record<string, IntSpec>;

/** --trust-proxy / WAITLIST_TRUST_PROXY: on/1 → private networks; a comma list → those proxies; off → none. */
async function trustArg(v: string | boolean | undefined): Promise<boolean | string[]> {
  if (v === undefined || v === false) return false;
  if (v === true) return true;
  const t = v.trim().toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(t)) return false;
  if (['1', 'true', 'yes', 'on'].includes(t)) return true;
  const list = v.split(',').map((x) => x.trim()).filter(Boolean);
  const { compileTrust } = await import('../../server/client-ip.js'); // lazy: --help loads no server code
  try {
    compileTrust(list);
  } catch {
    throw new CliError(`--trust-proxy: not an IP address, CIDR or loopback/linklocal/uniquelocal: ${v}`, EXIT.usage);
  }
  return list;
}

export function registerServe(program: Command) {
  const cmd = program
    .command('serve')
    .description('Run the waitlist server (join endpoint, management API, dashboard)')
    .addOption(intOption('--port <port>', 'port to listen on; 0 picks a free one', INTS.port))
    .addOption(new Option('--host <host>', 'address to bind (env HOST)').default(process.env.HOST || '127.0.0.1'))
    .option('--open-signup', 'let anyone create an account, not only the first user (env WAITLIST_OPEN_SIGNUP=1)', envOn('WAITLIST_OPEN_SIGNUP'))
    .addOption(
      new Option(
        '--trust-proxy [proxies]',
        'take the client IP from X-Forwarded-For: the right-most hop that is not a trusted proxy. Bare: trust loopback ' +
          'and private networks; or a comma list of proxy IPs/CIDRs (env WAITLIST_TRUST_PROXY=1 or the list)',
      ).default(process.env.WAITLIST_TRUST_PROXY),
    )
    .option('--no-rate-limit', 'turn every rate limit off, e.g. for benchmarks (env WAITLIST_RATE_LIMIT=off)')
    .addOption(intOption('--join-limit <n>', 'joins allowed per client IP per project per window', INTS.joinLimit))
    .addOption(intOption('--join-window <seconds>', 'join rate-limit window in seconds', INTS.joinWindow))
    .addOption(intOption('--login-limit <n>', 'consecutive failed log-ins per email and IP before the back-off starts', INTS.loginLimit))
    .addOption(intOption('--login-max-block <seconds>', 'longest log-in back-off; it doubles from 1 s up to this', INTS.loginMaxBlock))
    .addOption(intOption('--login-ip-limit <n>', 'failed log-ins allowed per IP per --login-ip-window', INTS.loginIpLimit))
    .addOption(intOption('--login-ip-window <seconds>', 'window of --login-ip-limit', INTS.loginIpWindow))
    .addOption(intOption('--signup-limit <n>', 'sign-ups allowed per IP per hour', INTS.signupLimit))
    .addOption(intOption('--headers-timeout <seconds>', 'time allowed to send request headers', INTS.headersTimeout))
    .addOption(intOption('--request-timeout <seconds>', 'time allowed to send a whole request', INTS.requestTimeout))
    .option('--log-requests', 'print one access-log line per request: time, request id, method, path, status, ms (env WAITLIST_LOG=requests)', (process.env.WAITLIST_LOG ?? '').split(',').includes('requests'))
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
      port: intOf(opts.port, '--port', INTS.port),
      host: opts.host,
      openSignup: Boolean(opts.openSignup),
      trustProxy: await trustArg(opts.trustProxy),
      rateLimit: opts.rateLimit !== false && (process.env.WAITLIST_RATE_LIMIT ?? '').toLowerCase() !== 'off',
      joinLimit: intOf(opts.joinLimit, '--join-limit', INTS.joinLimit),
      joinWindowSec: intOf(opts.joinWindow, '--join-window', INTS.joinWindow),
      loginFreeFailures: intOf(opts.loginLimit, '--login-limit', INTS.loginLimit),
      loginMaxBlockSec: intOf(opts.loginMaxBlock, '--login-max-block', INTS.loginMaxBlock),
      loginIpLimit: intOf(opts.loginIpLimit, '--login-ip-limit', INTS.loginIpLimit),
      loginIpWindowSec: intOf(opts.loginIpWindow, '--login-ip-window', INTS.loginIpWindow),
      signupLimit: intOf(opts.signupLimit, '--signup-limit', INTS.signupLimit),
      headersTimeoutSec: intOf(opts.headersTimeout, '--headers-timeout', INTS.headersTimeout),
      requestTimeoutSec: intOf(opts.requestTimeout, '--request-timeout', INTS.requestTimeout),
      logRequests: Boolean(opts.logRequests),
    });
  });
}
