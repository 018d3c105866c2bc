// Flag parsers and shared flags for the API commands. Kept free of heavy imports: it loads with --help.
// A bad value is a commander InvalidArgumentError, so it ends as a usage error (exit 2).
import { InvalidArgumentError, Option, type Command } from 'commander';
import { serverUrlProblem } from './credentials.js';

/** LIMITS.pageLimitMax of the contract, repeated so --help need not load zod (a unit test keeps them equal). */
export const PAGE_LIMIT_MAX = 100;
/** LIMITS.pageMax of the contract, repeated like PAGE_LIMIT_MAX. */
export const PAGE_MAX = 1_000_000_000;

/** An integer flag within [min, max]. */
export function intValue(min: number, max: number) {
  return (v: string) => {
    if (!/^\d+$/.test(v.trim())) throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    const n = Number(v);
    if (n < min || n > max) throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    return n;
  };
}

/** A JSON object flag (e.g. --metadata '{"plan":"pro"}'). */
export function jsonObjectValue(v: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch (err) {
    throw new InvalidArgumentError(`is not valid JSON (${(err as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"plan":"pro"}\'');
  }
  return parsed as Record<string, unknown>;
}

/** LIMITS.searchChars of the contract, repeated like PAGE_LIMIT_MAX (a unit test keeps them equal). */
export const SEARCH_CHARS_MAX = 200;

/** A --search flag: at most SEARCH_CHARS_MAX characters (the server's limit), checked before any request. */
export function searchValue(v: string): string {
  if (v.length > SEARCH_CHARS_MAX) throw new InvalidArgumentError(`must be at most ${SEARCH_CHARS_MAX} characters`);
  return v;
}

/** A non-empty string flag. */
export function nonEmpty(v: string): string {
  if (!v.trim()) throw new InvalidArgumentError('must not be empty');
  return v;
}

/** An http(s) URL flag (the same rule as WAITLIST_SERVER and the stored server). */
export function serverUrl(v: string): string {
  const problem = serverUrlProblem(v);
  if (problem) throw new InvalidArgumentError(problem);
  return v.replace(/\/+$/, '');
}

export const withJson = (cmd: Command) => cmd.option('--json', 'print the data as JSON on stdout and nothing else');

export const withProject = (cmd: Command) =>
  cmd.requiredOption('-p, --project <id-or-slug>', 'the project, by projectId or slug', nonEmpty);

export const withYes = (cmd: Command) => cmd.option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)');

/** Export format; when omitted it follows --output's extension (.csv, .ndjson/.jsonl, .json), else json. */
export const formatOption = () =>
  new Option('--format <format>', "csv, json or ndjson (default: from --output's extension, else json)").choices(['csv', 'json', 'ndjson']);

/** Help text block in the style of `gh`: an Examples section after the options. */
export const examples = (cmd: Command, lines: string[]) =>
  cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
