// `waitlist webhook list | create | rotate-secret | delete | deliveries | retry --project P` (and `test`).
import type { Command } from 'commander';
import { examples, intValue, nonEmpty, withJson, withProject, withYes } from '../options.js';
import type { CliContext } from '../io.js';

const run = () => import('./webhook-run.js');

export function registerWebhook(program: Command, ctx: CliContext) {
  const hook = program
    .command('webhook')
    .description("Manage a project's webhooks: signed POSTs of entry.created, entry.deleted, … (see docs/events.md)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ waitlist webhook create --project my-app --url https://example.com/hooks/waitlist\n  $ waitlist webhook deliveries wh_01JD… --project my-app\n  $ waitlist webhook rotate-secret wh_01JD… --project my-app --keep-previous 3600\n',
    );

  examples(withJson(withProject(hook.command('list').description("List a project's webhooks (every page)"))), [
    'waitlist webhook list --project my-app',
  ]).action(async (opts) => (await run()).listWebhooks(ctx, opts));

  examples(
    withJson(
      withProject(
        hook
          .command('create')
          .description('Create a webhook and print its signing secret (whsec_…), once: store it now')
          .requiredOption('--url <url>', 'http(s) URL that receives the events', nonEmpty)
          .option(
            '--events <types>',
            'comma-separated event types (default: all): entry.created,entry.confirmed,entry.invited,entry.accepted,entry.deleted',
          ),
      ),
    ),
    [
      'waitlist webhook create --project my-app --url https://example.com/hooks/waitlist',
      'waitlist webhook create --project my-app --url https://example.com/h --events entry.created,entry.deleted --json',
    ],
  ).action(async (opts) => (await run()).createWebhook(ctx, opts));

  examples(
    withJson(
      withProject(
        hook
          .command('rotate-secret')
          .argument('<webhookId>', 'the webhook id (wh_…)')
          .description(
            'Give a webhook a new signing secret and print it, once: the old one keeps signing beside it for --keep-previous seconds',
          )
          .option(
            '--keep-previous <seconds>',
            'how long the old secret still signs, 0-604800 (7 days); 0 drops it at once (default on the server: 86400, one day)',
            intValue(0, 604_800),
          ),
      ),
    ),
    [
      'waitlist webhook rotate-secret wh_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app',
      'waitlist webhook rotate-secret wh_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app --keep-previous 0 --json | jq -r .secret',
    ],
  ).action(async (webhookId: string, opts) => (await run()).rotateSecret(ctx, webhookId, opts));

  examples(
    withYes(
      withJson(
        withProject(
          hook.command('delete').argument('<webhookId>', 'the webhook id (wh_…)').description('Delete a webhook and its delivery log'),
        ),
      ),
    ),
    ['waitlist webhook delete wh_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app --yes'],
  ).action(async (webhookId: string, opts) => (await run()).deleteWebhook(ctx, webhookId, opts));

  examples(
    withJson(
      withProject(
        hook
          .command('deliveries')
          .argument('<webhookId>', 'the webhook id (wh_…)')
          .description('Show the delivery log of a webhook, newest first')
          .option('--limit <n>', 'how many (1-100)', intValue(1, 100), 20),
      ),
    ),
    ['waitlist webhook deliveries wh_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app'],
  ).action(async (webhookId: string, opts) => (await run()).listDeliveries(ctx, webhookId, opts));

  examples(
    withJson(
      withProject(
        hook
          .command('retry')
          .argument('<webhookId>', 'the webhook id (wh_…)')
          .argument('<deliveryId>', 'the delivery id (dlv_…)')
          .description('Send one delivery again now and show the result'),
      ),
    ),
    ['waitlist webhook retry wh_01JD3X5W8E0Q4M2K7C9B6N1R2T dlv_01JD3X9K2M4N6P8Q0R2S4T6V8W --project my-app'],
  ).action(async (webhookId: string, deliveryId: string, opts) => (await run()).retryDelivery(ctx, webhookId, deliveryId, opts));

  examples(
    withJson(
      withProject(
        hook
          .command('test')
          .argument('<webhookId>', 'the webhook id (wh_…)')
          .description('Send a signed `ping` event now and show the result'),
      ),
    ),
    ['waitlist webhook test wh_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app'],
  ).action(async (webhookId: string, opts) => (await run()).testWebhook(ctx, webhookId, opts));
}
