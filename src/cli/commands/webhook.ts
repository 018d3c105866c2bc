// `waitlist webhook list | create | delete | deliveries | retry --project P` (and `test`).
import type { Command } from 'commander';
import { examples, intValue, nonEmpty, withJson, withProject, withYes } from '../options.js';

const run = () => import('./webhook-run.js');

export function registerWebhook(program: Command) {
  const hook = program
    .command('webhook')
    .description("Manage a project's webhooks: signed POSTs of entry.created, entry.deleted, … (see docs/events.md)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ waitlist webhook create --project my-app --url https://example.com/hooks/waitlist\n  $ waitlist webhook deliveries wh_01JD… --project my-app\n',
    );

  examples(withJson(withProject(hook.command('list').description("List a project's webhooks (every page)"))), [
    'waitlist webhook list --project my-app',
  ]).action(async (opts) => (await run()).listWebhooks(opts));

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
  ).action(async (opts) => (await run()).createWebhook(opts));

  examples(
    withYes(
      withJson(
        withProject(
          hook.command('delete').argument('<webhookId>', 'the webhook id (wh_…)').description('Delete a webhook and its delivery log'),
        ),
      ),
    ),
    ['waitlist webhook delete wh_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app --yes'],
  ).action(async (webhookId: string, opts) => (await run()).deleteWebhook(webhookId, opts));

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
  ).action(async (webhookId: string, opts) => (await run()).listDeliveries(webhookId, opts));

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
  ).action(async (webhookId: string, deliveryId: string, opts) => (await run()).retryDelivery(webhookId, deliveryId, opts));

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
  ).action(async (webhookId: string, opts) => (await run()).testWebhook(webhookId, opts));
}
