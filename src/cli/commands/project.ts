// `waitlist project list | get | create | update | delete`.
import type { Command } from 'commander';
import { examples, nonEmpty, withJson, withYes } from '../options.js';
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
      project
        .command('settings')
        .argument('<id-or-slug>', 'projectId or slug')
        .description('Show or change the join protections of a project (no flags: show them)')
        .option('--allowed-origins <origins>', 'comma-separated origins allowed to call the join route from a browser, e.g. https://example.com')
        .option('--any-origin', 'allow browsers on any origin (the default)')
        .option('--block-disposable', 'refuse throwaway email domains at join (400 on email)')
        .option('--no-block-disposable', 'accept throwaway email domains (the default)')
        .option('--honeypot-field <name>', 'an extra join field only bots fill; a filled one gets a fake 201 and is not stored')
        .option('--no-honeypot-field', 'turn the honeypot off'),
    ),
    [
      'waitlist project settings my-app',
      'waitlist project settings my-app --allowed-origins https://example.com,https://www.example.com',
      'waitlist project settings my-app --block-disposable --honeypot-field website',
      'waitlist project settings my-app --any-origin --no-honeypot-field --json',
    ],
  ).action(async (ref: string, opts) => (await run()).projectSettings(ctx, ref, opts));
}
