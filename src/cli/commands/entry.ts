// `waitlist entry list | get | update | delete | export --project P`.
import { Option, type Command } from 'commander';
import {
  examples,
  formatOption,
  PAGE_LIMIT_MAX,
  PAGE_MAX,
  intValue,
  jsonObjectValue,
  searchValue,
  withJson,
  withProject,
  withYes,
} from '../options.js';
import type { CliContext } from '../io.js';

const run = () => import('./entry-run.js');

export function registerEntry(program: Command, ctx: CliContext) {
  const entry = program
    .command('entry')
    .description("Manage a project's waitlist entries (subscribers)")
    .addHelpText(
      'after',
      '\nExamples:\n  $ waitlist entry list --project my-app --search ada\n  $ waitlist entry export --project my-app --output subscribers.csv\n',
    );

  examples(
    withJson(
      withProject(
        entry
          .command('list')
          .description('List entries, newest first (one page, or every page with --all)')
          .addOption(new Option('--search <q>', 'case-insensitive substring of email or name').argParser(searchValue))
          .addOption(new Option('--page <n>', 'page number (from 1)').argParser(intValue(1, PAGE_MAX)).conflicts('all'))
          .addOption(
            new Option('--limit <n>', `entries per page (1–${PAGE_LIMIT_MAX}; default 20, or 100 with --all)`).argParser(
              intValue(1, PAGE_LIMIT_MAX),
            ),
          )
          .option('--all', 'fetch every page, then print them all (nothing if a page fails; `entry export` streams huge lists)')
          .addOption(
            new Option('--status <status>', 'only entries with this status').choices(['pending', 'waiting', 'invited', 'accepted']),
          )
          .addOption(
            new Option('--sort <order>', 'newest first, or position: waiting entries in queue order').choices(['newest', 'position']),
          ),
      ),
    ),
    [
      'waitlist entry list --project my-app',
      'waitlist entry list --project my-app --search example.com --page 2 --limit 50',
      "waitlist entry list --project my-app --all --json | jq -r '.[].email'",
      'waitlist entry list --project my-app --all | cut -f2        # TSV when piped: id, email, name, …',
      'waitlist entry list --project my-app --status waiting --sort position --limit 10',
    ],
  ).action(async (opts) => (await run()).listEntries(ctx, opts));

  examples(
    withJson(
      withProject(entry.command('get').argument('<entryId>', 'the entry id (ent_…)').description('Show one entry with its metadata')),
    ),
    ['waitlist entry get ent_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app'],
  ).action(async (entryId: string, opts) => (await run()).getEntry(ctx, entryId, opts));

  examples(
    withJson(
      withProject(
        entry
          .command('update')
          .argument('<entryId>', 'the entry id (ent_…)')
          .description("Change an entry's name and/or metadata (metadata is replaced as a whole)")
          .option('--name <name>', 'subscriber name')
          .option('--metadata <json>', 'a JSON object, e.g. \'{"plan":"pro"}\'', jsonObjectValue),
      ),
    ),
    [
      'waitlist entry update ent_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app --name "Ada Lovelace"',
      'waitlist entry update ent_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app --metadata \'{"plan":"pro","invited":true}\'',
    ],
  ).action(async (entryId: string, opts) => (await run()).updateEntry(ctx, entryId, opts));

  examples(
    withYes(
      withJson(
        withProject(
          entry
            .command('delete')
            .argument('<entryId>', 'the entry id (ent_…)')
            .description('Soft-delete an entry (the email may join again)'),
        ),
      ),
    ),
    [
      'waitlist entry delete ent_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app',
      'waitlist entry delete ent_01JD3X5W8E0Q4M2K7C9B6N1R2T --project my-app --yes',
    ],
  ).action(async (entryId: string, opts) => (await run()).deleteEntry(ctx, entryId, opts));

  examples(
    withJson(
      withProject(
        entry
          .command('invite')
          .argument('[entryIds...]', 'entries to invite (ent_…): each must be waiting or invited (re-inviting renews the code)')
          .description('Let people in: invite the next N waiting entries in queue order, or the given entries (one transaction)')
          .addOption(new Option('--next <n>', 'invite the first N waiting entries (1–10000)').argParser(intValue(1, 10_000)))
          .option('--dry-run', 'only list who would be invited; change nothing'),
      ),
    ),
    [
      'waitlist entry invite --project my-app --next 100 --dry-run',
      'waitlist entry invite --project my-app --next 100',
      'waitlist entry invite ent_01JD3X5W8E0Q4M2K7C9B6N1R2T ent_01JD3X5W8E0Q4M2K7C9B6N1R2V --project my-app',
      "waitlist entry invite --project my-app --next 500 --json | jq -r '.[] | [.email, .inviteCode] | @tsv'",
    ],
  ).action(async (entryIds: string[], opts) => (await import('./invite-run.js')).inviteEntries(entryIds, opts));

  examples(
    withProject(
      entry
        .command('export')
        .description('Stream every entry (csv, json or ndjson) to stdout or a file, without holding the list in memory')
        .addOption(formatOption())
        .option('--json', 'the json format (same as --format json)')
        .option('-o, --output <file>', 'write to this file instead of stdout (- is stdout)')
        .addOption(new Option('--search <q>', 'only entries whose email or name contains this').argParser(searchValue)),
    ),
    [
      'waitlist entry export --project my-app --output subscribers.csv      # format from the extension',
      'waitlist entry export --project my-app --json | jq length',
      'waitlist entry export --project my-app --format ndjson | jq -c .',
      'waitlist entry export --project my-app --format json > subscribers.json',
    ],
  ).action(async (opts) => (await run()).exportEntries(ctx, opts));

  examples(
    withJson(
      withProject(
        entry
          .command('import')
          .description('Import subscribers from a CSV or NDJSON file (streamed: any size); duplicates skipped, bad rows listed by line')
          .requiredOption('-f, --file <file>', 'the file to import')
          .addOption(new Option('--format <format>', 'csv or ndjson (default: from the extension, else csv)').choices(['csv', 'ndjson']))
          .option('--dry-run', 'check everything and report, write nothing')
          .addOption(
            new Option('--date-format <order>', 'how slash dates read: auto (settled by the file), dmy or mdy').choices([
              'auto',
              'dmy',
              'mdy',
            ]),
          ),
      ),
    ),
    [
      'waitlist entry import --project my-app --file subscribers.csv --dry-run',
      'waitlist entry import --project my-app --file export.csv --date-format dmy',
      'waitlist entry import --project my-app --file entries.ndjson --json',
    ],
  ).action(async (opts) => (await import('./import-run.js')).importEntries(ctx, opts));
}
