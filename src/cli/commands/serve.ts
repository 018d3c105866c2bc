// `waitlist serve`: the HTTP server. Every flag has an env var; flags win.
import { type Command, Option } from 'commander';
import { addDbOptions, dbConfig } from './db-options.js';
import { CliError, EXIT } from '../errors.js';
import { intValue } from '../options.js';

const ON = ['1', 'true', 'yes', 'on'];
const OFF = ['', '0', 'false', 'no', 'off'];
/** An env var's value as the switches read it: trimmed, lower-case, '' when unset. */
const envValue = (name: string, env = process.env) => (env[name] ?? '').trim().toLowerCase();
const envOn = (name: string) => ON.includes(envValue(name));

/**
 * The on/off variables, checked when the server starts (not when the CLI loads: a bad one must not
 * break `--help` or the client commands): a value that is neither on nor off (a typo such as
 * WAITLIST_RATE_LIMIT=of) is a usage error, instead of counting silently as off.
 */
function checkSwitches(env: NodeJS.ProcessEnv) {
  const bad = (name: string, allowed: string) => new CliError(`${name} must be ${allowed}, not '${env[name]}'`, EXIT.usage);
  const isSwitch = (name: string) => ON.includes(envValue(name, env)) || OFF.includes(envValue(name, env));
  for (const name of ['WAITLIST_OPEN_SIGNUP', 'WAITLIST_ALLOW_PRIVATE_WEBHOOKS']) {
    if (!isSwitch(name)) throw bad(name, 'one of 1, true, yes, on (or 0, false, no, off)');
  }
  if (!isSwitch('WAITLIST_RATE_LIMIT')) throw bad('WAITLIST_RATE_LIMIT', "'off' (or 'on', the default)");
  const log = (env.WAITLIST_LOG ?? '').split(',').map((x) => x.trim());
  if (log.some((x) => x !== '' && x !== 'requests')) throw bad('WAITLIST_LOG', "'requests' (the only log there is to turn on)");
}

/** An integer flag (or its env var's value): the CLI's one integer parser; a bad value is a usage error (exit 2). */
function intArg(name: string, min: number, max: number) {
  return (v: string) => {
    try {
      return intValue(min, max)(v);
    } catch (err) {
      throw new CliError(`${name} ${(err as Error).message}, not '${v}' (flag or env var)`, EXIT.usage);
    }
  };
}

/** --trust-proxy / WAITLIST_TRUST_PROXY: on/1 → private networks; a comma list → those proxies; off → none. */
async function trustArg(v: string | boolean | undefined): Promise<boolean | string[]> {
  if (v === undefined || v === false) return false;
  if (v === true) return true;
  const t = v.trim().toLowerCase();
  if (OFF.includes(t)) return false;
  if (ON.includes(t)) return true;
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const { compileTrust } = await import('../../server/client-ip.js'); // lazy: --help loads no server code
  try {
    compileTrust(list);
  } catch {
    throw new CliError(`--trust-proxy: not an IP address, CIDR or loopback/linklocal/uniquelocal: ${v}`, EXIT.usage);
  }
  return list;
}

const env = (name: string, fallback: string) => process.env[name] || fallback;

/** An option whose default is its env var's value (else `fallback`); its help names the variable. */
const envOption = (flags: string, description: string, name: string, fallback?: string) =>
  new Option(flags, `${description} (env ${name})`).default(fallback === undefined ? process.env[name] : env(name, fallback));

/** --allowed-hosts / WAITLIST_ALLOWED_HOSTS: comma list of `name` or `name:port`. */
async function allowedHostsArg(v: string | undefined): Promise<string[] | undefined> {
  if (v === undefined || v.trim() === '') return undefined;
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const { splitHost } = await import('../../server/hosts.js'); // lazy: --help loads no server code
  const bad = list.filter((h) => !splitHost(h));
  if (bad.length) throw new CliError(`--allowed-hosts: not a host name or host:port: ${bad.join(', ')}`, EXIT.usage);
  return list;
}

/** The events layer's serve options (SMTP, public URL, private webhooks, retry schedule), checked. */
function eventOptions(opts: { publicUrl?: string; smtpUrl?: string; mailFrom?: string; allowPrivateWebhooks?: boolean }) {
  const out: { publicUrl?: string; smtpUrl?: string; mailFrom?: string; allowPrivateWebhooks: boolean; retrySchedule?: number[] } = {
    allowPrivateWebhooks: Boolean(opts.allowPrivateWebhooks),
  };
  if (opts.publicUrl) {
    if (!/^https?:\/\/[^/]+/i.test(opts.publicUrl) || !URL.canParse(opts.publicUrl))
      throw new CliError(`--public-url must be an http(s) URL, like https://waitlist.example.com, not '${opts.publicUrl}'`, EXIT.usage);
    out.publicUrl = opts.publicUrl.replace(/\/+$/, '');
  }
  if (opts.smtpUrl) {
    if (!/^smtps?:\/\//i.test(opts.smtpUrl) || !URL.canParse(opts.smtpUrl))
      // The value is not repeated: it may hold a password.
      throw new CliError('--smtp-url must look like smtp://user:pass@host:587 or smtps://user:pass@host:465', EXIT.usage);
    out.smtpUrl = opts.smtpUrl;
  }
  if (opts.mailFrom) {
    // "Name <addr>", "\"Name\" <addr>" or a bare address. Anything else would reach nodemailer as an
    // empty address: emails with no From header and a null sender, logged as delivered.
    const m = /<([^<>]*)>\s*$/.exec(opts.mailFrom);
    const addr = (m ? m[1]! : opts.mailFrom).trim();
    if (!/^[^\s@<>",;]+@[^\s@<>",;]+$/.test(addr))
      throw new CliError(
        `--mail-from must be an address or "Name <address>", like "My app <hello@example.com>", not '${opts.mailFrom}'`,
        EXIT.usage,
      );
    out.mailFrom = opts.mailFrom;
  }
  const schedule = process.env.WAITLIST_RETRY_SCHEDULE;
  if (schedule) {
    const list = schedule.split(',').map(Number);
    if (!list.length || list.some((n) => !Number.isFinite(n) || n < 0))
      throw new CliError(`WAITLIST_RETRY_SCHEDULE must be comma-separated seconds, like 10,60,300, not '${schedule}'`, EXIT.usage);
    out.retrySchedule = list;
  }
  return out;
}

/** The shortest WAITLIST_SECRET accepted (a random 24-byte base64 string is 32 characters). */
const MIN_SERVER_SECRET = 32;
/** WAITLIST_SECRET (environment only: a flag's value shows in `ps`); src/core/server-keys.ts mixes it in. */
function serverSecretEnv(): { serverSecret?: string } {
  const secret = process.env.WAITLIST_SECRET;
  if (!secret) return {};
  if (secret.length < MIN_SERVER_SECRET)
    throw new CliError(
      `WAITLIST_SECRET must be at least ${MIN_SERVER_SECRET} characters (try: openssl rand -base64 32), not ${secret.length}`,
      EXIT.usage,
    );
  return { serverSecret: secret };
}

/** Seconds (decimals allowed) → milliseconds, within [min, max] seconds. `name` is a flag, or an env var of its own. */
function secondsArg(name: string, min: number, max: number) {
  const where = name.startsWith('--') ? ' (flag or env var)' : '';
  return (v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || v.trim() === '' || n < min || n > max)
      throw new CliError(`${name} must be a number of seconds from ${min} to ${max}, not '${v}'${where}`, EXIT.usage);
    return Math.round(n * 1000);
  };
}

export function registerServe(program: Command) {
  const cmd = program
    .command('serve')
    .description('Run the waitlist server (join endpoint, management API, dashboard)')
    .addOption(envOption('--port <port>', 'port to listen on; 0 picks a free one', 'PORT', '8080'))
    .addOption(envOption('--host <host>', 'address to bind', 'HOST', '127.0.0.1'))
    .option(
      '--open-signup',
      'let anyone create an account, not only the first user (env WAITLIST_OPEN_SIGNUP=1)',
      envOn('WAITLIST_OPEN_SIGNUP'),
    )
    .addOption(
      new Option(
        '--trust-proxy [proxies]',
        'take the client IP from X-Forwarded-For: the right-most hop that is not a trusted proxy. Bare: trust loopback ' +
          'and private networks; or a comma list of proxy IPs/CIDRs (env WAITLIST_TRUST_PROXY=1 or the list)',
      ).default(process.env.WAITLIST_TRUST_PROXY),
    )
    .option('--no-rate-limit', 'turn every rate limit off, e.g. for benchmarks (env WAITLIST_RATE_LIMIT=off)')
    .addOption(envOption('--join-limit <n>', 'joins allowed per client IP per project per window', 'WAITLIST_JOIN_LIMIT', '60'))
    .addOption(envOption('--join-window <seconds>', 'join rate-limit window in seconds', 'WAITLIST_JOIN_WINDOW', '60'))
    .addOption(
      envOption('--login-limit <n>', 'consecutive failed log-ins per email and IP before the back-off starts', 'WAITLIST_LOGIN_LIMIT', '5'),
    )
    .addOption(
      envOption(
        '--login-max-block <seconds>',
        'longest log-in back-off; it doubles from 1 s up to this',
        'WAITLIST_LOGIN_MAX_BLOCK',
        '900',
      ),
    )
    .addOption(envOption('--login-ip-limit <n>', 'failed log-ins allowed per IP per --login-ip-window', 'WAITLIST_LOGIN_IP_LIMIT', '100'))
    .addOption(envOption('--login-ip-window <seconds>', 'window of --login-ip-limit', 'WAITLIST_LOGIN_IP_WINDOW', '900'))
    .addOption(envOption('--signup-limit <n>', 'sign-ups allowed per IP per hour', 'WAITLIST_SIGNUP_LIMIT', '100'))
    .addOption(envOption('--headers-timeout <seconds>', 'time allowed to send request headers', 'WAITLIST_HEADERS_TIMEOUT', '10'))
    .addOption(envOption('--request-timeout <seconds>', 'time allowed to send a whole request', 'WAITLIST_REQUEST_TIMEOUT', '30'))
    .addOption(
      envOption(
        '--import-timeout <seconds>',
        "time allowed to send a whole import file (a project owner's upload; other requests: --request-timeout)",
        'WAITLIST_IMPORT_TIMEOUT',
        '3600',
      ),
    )
    .addOption(
      envOption(
        '--public-url <url>',
        'base URL of every link the server sends (emails; default the URL it listens on); its host is also accepted on /api',
        'WAITLIST_PUBLIC_URL',
      ),
    )
    .addOption(
      envOption(
        '--smtp-url <url>',
        'SMTP server for emails: smtp[s]://user:pass@host:port; without it no email is sent',
        'WAITLIST_SMTP_URL',
      ),
    )
    .addOption(envOption('--mail-from <from>', 'sender of emails, "Name <addr>"', 'WAITLIST_MAIL_FROM', 'waitlist@localhost'))
    .option(
      '--allow-private-webhooks',
      'let webhooks reach loopback/private/link-local addresses (env WAITLIST_ALLOW_PRIVATE_WEBHOOKS=1)',
      envOn('WAITLIST_ALLOW_PRIVATE_WEBHOOKS'),
    )
    .addOption(envOption('--pg-pool-size <n>', 'PostgreSQL connections per instance', 'WAITLIST_PG_POOL', '10'))
    .addOption(
      envOption(
        '--pg-connect-timeout <seconds>',
        'PostgreSQL: longest wait to open a connection or get a free one from the pool',
        'WAITLIST_PG_CONNECT_TIMEOUT',
        '5',
      ),
    )
    .addOption(
      envOption(
        '--pg-statement-timeout <seconds>',
        'PostgreSQL statement_timeout of every query the server runs',
        'WAITLIST_PG_STATEMENT_TIMEOUT',
        '10',
      ),
    )
    .addOption(
      new Option(
        '--allowed-hosts <hosts>',
        'comma list of extra Host names accepted on /api, `name` or `name:port` (env WAITLIST_ALLOWED_HOSTS)',
      ).default(process.env.WAITLIST_ALLOWED_HOSTS || undefined),
    )
    .option(
      '--log-requests',
      'print one access-log line per request: time, request id, method, path, status, ms (env WAITLIST_LOG=requests)',
      (process.env.WAITLIST_LOG ?? '').split(',').includes('requests'),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ waitlist serve                                  # http://127.0.0.1:8080, ./waitlist.db
  $ waitlist serve --port 3000 --db /var/lib/waitlist/waitlist.db
  $ waitlist serve --host 0.0.0.0 --trust-proxy     # behind nginx on the same machine
  $ DATABASE_URL=postgres://user@db/waitlist waitlist serve
  $ waitlist serve --public-url https://waitlist.example.com \\
      --smtp-url smtps://user:pass@smtp.example.com:465 --mail-from "My app <hello@example.com>"`,
    );
  addDbOptions(cmd).action(async (opts) => {
    checkSwitches(process.env);
    const { runServe } = await import('./serve-run.js');
    await runServe({
      ...dbConfig(opts, cmd),
      pg: {
        poolSize: intArg('--pg-pool-size', 1, 1000)(opts.pgPoolSize),
        connectTimeoutMs: secondsArg('--pg-connect-timeout', 0.1, 600)(opts.pgConnectTimeout),
        statementTimeoutMs: secondsArg('--pg-statement-timeout', 0.1, 3600)(opts.pgStatementTimeout),
      },
      port: intArg('--port', 0, 65535)(opts.port),
      host: opts.host,
      openSignup: Boolean(opts.openSignup),
      trustProxy: await trustArg(opts.trustProxy),
      // Unset or empty is on (checkSwitches has refused anything but ON and OFF).
      rateLimit: opts.rateLimit !== false && (envValue('WAITLIST_RATE_LIMIT') === '' || ON.includes(envValue('WAITLIST_RATE_LIMIT'))),
      joinLimit: intArg('--join-limit', 1, 1_000_000)(opts.joinLimit),
      joinWindowSec: intArg('--join-window', 1, 86_400)(opts.joinWindow),
      loginFreeFailures: intArg('--login-limit', 1, 1000)(opts.loginLimit),
      loginMaxBlockSec: intArg('--login-max-block', 1, 86_400)(opts.loginMaxBlock),
      loginIpLimit: intArg('--login-ip-limit', 1, 1_000_000)(opts.loginIpLimit),
      loginIpWindowSec: intArg('--login-ip-window', 1, 86_400)(opts.loginIpWindow),
      signupLimit: intArg('--signup-limit', 1, 1_000_000)(opts.signupLimit),
      headersTimeoutSec: intArg('--headers-timeout', 1, 600)(opts.headersTimeout),
      requestTimeoutSec: intArg('--request-timeout', 1, 3600)(opts.requestTimeout),
      importTimeoutSec: intArg('--import-timeout', 1, 86_400)(opts.importTimeout),
      logRequests: Boolean(opts.logRequests),
      ...(process.env.WAITLIST_SHUTDOWN_GRACE
        ? { idleGraceMs: secondsArg('WAITLIST_SHUTDOWN_GRACE', 0, 60)(process.env.WAITLIST_SHUTDOWN_GRACE) }
        : {}),
      ...eventOptions(opts),
      ...serverSecretEnv(),
      allowedHosts: await allowedHostsArg(opts.allowedHosts),
    });
  });
}
