// `waitlist signup | login | logout | whoami`: accounts and the stored session.
import type { Command } from 'commander';
import { examples, nonEmpty, serverUrl, withJson } from '../options.js';
import type { CliContext } from '../io.js';

const run = () => import('./auth-run.js');

/** The options of signup and login: server, email, then any of the command's own, then --password-stdin and --json. */
function credentials(cmd: Command, own: (cmd: Command) => Command = (c) => c) {
  const base = cmd
    .option('--server <url>', 'server URL (env WAITLIST_SERVER; default: the stored one, else http://127.0.0.1:8080)', serverUrl)
    .option('--email <email>', 'email address (prompted for on a terminal when missing)', nonEmpty);
  return withJson(own(base).option('--password-stdin', 'read the password from standard input instead of prompting'));
}

export function registerAuth(program: Command, ctx: CliContext) {
  examples(
    credentials(
      program.command('signup').description('Create an account on a server and log in (the first account bootstraps a new server)'),
      (cmd) => cmd.option('--name <name>', 'display name'),
    ),
    [
      'waitlist signup --server http://127.0.0.1:8080          # prompts for email and password',
      'printf %s "$PASSWORD" | waitlist signup --email me@example.com --name Me --password-stdin',
    ],
  ).action(async (opts) => (await run()).signup(ctx, opts));

  examples(
    credentials(program.command('login').description('Log in to a server and store the session in your config directory (mode 0600)')),
    [
      'waitlist login                                          # prompts on a terminal',
      'waitlist login --server https://waitlist.example.com --email me@example.com',
      'printf %s "$PASSWORD" | waitlist login --email me@example.com --password-stdin',
    ],
  ).action(async (opts) => (await run()).login(ctx, opts));

  examples(withJson(program.command('logout').description('End the session on the server and delete the stored one')), [
    'waitlist logout',
  ]).action(async (opts) => (await run()).logout(ctx, opts));

  examples(withJson(program.command('whoami').description('Show the logged-in user and the server')), [
    'waitlist whoami',
    'waitlist whoami --json | jq -r .email',
  ]).action(async (opts) => (await run()).whoami(ctx, opts));
}
