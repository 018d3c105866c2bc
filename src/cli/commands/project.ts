// `waitlist project list | get | create | update | delete`.
import type { Command } from 'commander';
import { examples, intValue, nonEmpty, withJson, withYes } from '../options.js';
import { surfaceFlags } from './settings-surface.js';
import type { CliContext } from '../io.js';

const run = () => import('./project-run.js');

export function registerProject(program: Command, ctx: CliContext) {
  const project = program
    .command('project')
    .description('Manage your projects (one waitlist each)')
    .addHelpText('after', '\nExamples:\n  $ waitlist project list\n  $ waitlist project create --name "My App" --slug my-app\n');

  examples(withJson(project.command('list').description('List your projects (every page)')), [
    'waitlist project list',
    "waitlist project list --json | jq -r '.[].slug'",
  ]).action(async (opts) => (await run()).listProjects(ctx, opts));

  examples(withJson(project.command('get').argument('<id-or-slug>', 'projectId or slug').description('Show one project')), [
    'waitlist project get my-app',
    'waitlist project get prj_01JD3X5W8E0Q4M2K7C9B6N1R2T --json',
  ]).action(async (ref: string, opts) => (await run()).getProject(ctx, ref, opts));

  examples(
    withJson(
      project
        .command('create')
        .description('Create a project; the slug (used in the join URL) is derived from the name when omitted')
        .requiredOption('--name <name>', 'project name (1–100 characters)')
        .option('--slug <slug>', '3–48 characters of a-z, 0-9 and single inner hyphens; cannot change later', nonEmpty),
    ),
    ['waitlist project create --name "My App"', 'waitlist project create --name "My App" --slug my-app --json'],
  ).action(async (opts) => (await run()).createProject(ctx, opts));

  examples(
    withJson(
      project
        .command('update')
        .argument('<id-or-slug>', 'projectId or slug')
        .description('Rename a project (the slug never changes)')
        .requiredOption('--name <name>', 'new name (1–100 characters)'),
    ),
    ['waitlist project update my-app --name "My App (beta)"'],
  ).action(async (ref: string, opts) => (await run()).updateProject(ctx, ref, opts));

  examples(
    withYes(
      withJson(
        project
          .command('delete')
          .argument('<id-or-slug>', 'projectId or slug')
          .description('Soft-delete a project: its join URL and keys stop working; an operator can restore it'),
      ),
    ),
    ['waitlist project delete my-app', 'waitlist project delete my-app --yes   # no question (scripts, CI)'],
  ).action(async (ref: string, opts) => (await run()).deleteProject(ctx, ref, opts));

  examples(
    withJson(
      surfaceFlags(
        project
          .command('settings')
          .argument('<id-or-slug>', 'projectId or slug')
          .description('Show or change the join protections of a project (no flags: show them)')
          .option(
            '--allowed-origins <origins>',
            'comma-separated origins allowed to call the join route from a browser, e.g. https://example.com',
          )
          .option('--any-origin', 'allow browsers on any origin (the default)')
          .option('--block-disposable', 'refuse throwaway email domains at join (400 on email)')
          .option('--no-block-disposable', 'accept throwaway email domains (the default)')
          .option('--honeypot-field <name>', 'an extra join field only bots fill; a filled one gets a fake 201 and is not stored')
          .option('--no-honeypot-field', 'turn the honeypot off')
          .option('--welcome-email', 'email each new subscriber a welcome (needs SMTP on the server)')
          .option('--no-welcome-email', 'send no welcome email (the default)')
          .option('--notify-emails <addresses>', 'comma-separated addresses that get sign-up notices ("" for none)')
          .option('--notify <mode>', 'sign-up notices: each (one email per sign-up), hourly (a digest) or off (the default)')
          .option('--double-opt-in', 'new entries stay pending until they confirm the emailed link (needs SMTP on the server)')
          .option('--no-double-opt-in', 'entries join the queue at once (the default)')
          .option(
            '--referral-boost <n>',
            'places each referral moves the referrer up (0–1000; default 0 = first come, first served)',
            intValue(0, 1000),
          )
          .option('--referral-url <template>', 'referral link template with {code}, e.g. https://example.com/?ref={code}')
          .option('--no-referral-url', 'referral links point to the hosted page /w/<slug>?ref=… (the default)')
          .option('--public-leaderboard', 'publish the top 10 referrers at /v1/waitlist/<slug>/leaderboard (names or masked emails)')
          .option('--no-public-leaderboard', 'no public leaderboard (the default)')
          .option('--invite-ttl-days <n>', 'days an invite code stays valid (1–365; default 14)', intValue(1, 365))
          .option('--invite-url <template>', 'link in invite emails, with {code}, e.g. https://app.example.com/signup?invite={code}')
          .option('--no-invite-url', 'invite emails carry the code only (the default)')
          .option(
            '--pending-purge-days <n>',
            'erase unconfirmed (pending) entries after this many days (1–365; default 7)',
            intValue(1, 365),
          ),
      ),
    ),
    [
      'waitlist project settings my-app',
      'waitlist project settings my-app --allowed-origins https://example.com,https://www.example.com',
      'waitlist project settings my-app --block-disposable --honeypot-field website',
      'waitlist project settings my-app --any-origin --no-honeypot-field --json',
      'waitlist project settings my-app --welcome-email --notify-emails founder@example.com --notify hourly',
      'waitlist project settings my-app --referral-boost 5 --public-leaderboard',
      "waitlist project settings my-app --invite-ttl-days 30 --invite-url 'https://app.example.com/signup?invite={code}'",
      'waitlist project settings my-app --page-title "Join the beta" --captcha pow --fields @fields.json',
    ],
  ).action(async (ref: string, opts) => (await run()).projectSettings(ctx, ref, opts));
}
