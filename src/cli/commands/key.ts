// `waitlist key list | get | create | update | delete --project P`.
import { Option, type Command } from 'commander';
import { examples, nonEmpty, withJson, withProject, withYes } from '../options.js';
import type { CliContext } from '../io.js';

const run = () => import('./key-run.js');

export function registerKey(program: Command, ctx: CliContext) {
  const key = program
    .command('key')
    .description("Manage a project's API keys (publishable: they can only add subscribers)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ waitlist key create --project my-app --name "landing page"\n  $ waitlist key list --project my-app\n',
    );

  examples(withJson(withProject(key.command('list').description("List a project's live keys (every page)"))), [
    'waitlist key list --project my-app',
    "waitlist key list --project my-app --json | jq -r '.[].keyId'",
  ]).action(async (opts) => (await run()).listKeys(ctx, opts));

  examples(
    withJson(withProject(key.command('get').argument('<keyId>', 'the key id (key_…)').description('Show one key (never its secret)'))),
    ['waitlist key get key_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app'],
  ).action(async (keyId: string, opts) => (await run()).getKey(ctx, keyId, opts));

  examples(
    withJson(
      withProject(
        key
          .command('create')
          .description('Create a key and print its full value, once: store it now')
          .requiredOption('--name <name>', 'a label such as "landing page" (1–100 characters)', nonEmpty)
          .addOption(
            new Option(
              '--kind <kind>',
              'publishable (wl_pk_…, may only join; for web pages) or secret (wl_sk_…, also redeems invites; servers only)',
            )
              .choices(['publishable', 'secret'])
              .default('publishable'),
          ),
      ),
    ),
    [
      'waitlist key create --project my-app --name "landing page"',
      'waitlist key create --project my-app --name backend --kind secret',
      'KEY=$(waitlist key create --project my-app --name ci --json | jq -r .key)',
    ],
  ).action(async (opts) => (await run()).createKey(ctx, opts));

  examples(
    withJson(
      withProject(
        key
          .command('update')
          .argument('<keyId>', 'the key id (key_…)')
          .description('Rename a key')
          .requiredOption('--name <name>', 'new label (1–100 characters)', nonEmpty),
      ),
    ),
    ['waitlist key update key_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app --name "old landing page"'],
  ).action(async (keyId: string, opts) => (await run()).updateKey(ctx, keyId, opts));

  examples(
    withYes(
      withJson(
        withProject(
          key
            .command('delete')
            .argument('<keyId>', 'the key id (key_…)')
            .description('Revoke a key at once: the next join with it answers 401'),
        ),
      ),
    ),
    [
      'waitlist key delete key_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app',
      'waitlist key delete key_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app --yes',
    ],
  ).action(async (keyId: string, opts) => (await run()).deleteKey(ctx, keyId, opts));
}
