// The sign-up surface's flags of `waitlist project settings` (hosted page, redirect, custom fields,
// captcha): added to the command here, turned into the settings body's fields in surfaceChange().
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { CliError, EXIT } from '../errors.js';

export interface SurfaceOpts {
  hostedPage?: boolean;
  pageTitle?: string;
  pageDescription?: string;
  redirectUrl?: string | false;
  fields?: string;
  captcha?: 'off' | 'pow';
  captchaDifficulty?: string;
}

/** Adds the surface flags to the settings command. */
export function surfaceFlags(cmd: Command): Command {
  return cmd
    .option('--hosted-page', 'serve the hosted sign-up page at /w/<slug> (the default)')
    .option('--no-hosted-page', 'turn the hosted page off (it answers 404)')
    .option('--page-title <text>', 'the hosted page\'s heading ("" = the project name)')
    .option('--page-description <text>', 'a paragraph under the heading ("" = none)')
    .option('--redirect-url <url>', 'where plain form posts send the browser after a join (?status=joined / ?error=CODE appended)')
    .option('--no-redirect-url', 'send form posts back to the hosted page (the default)')
    .option('--fields <json>', 'custom fields: a JSON array of {key, label, type, required, options}, or @file.json; [] removes them')
    .addOption(new Option('--captcha <mode>', 'proof-of-work captcha at join').choices(['off', 'pow']))
    .option('--captcha-difficulty <n>', 'largest number a challenge hides (1000-1000000, default 50000)');
}

/** The settings fields named by the flags, and each field's flag for error messages. */
export function surfaceChange(opts: SurfaceOpts): { change: Record<string, unknown>; flags: Record<string, string> } {
  const change: Record<string, unknown> = {};
  if (opts.hostedPage !== undefined) change.hostedPage = opts.hostedPage;
  if (opts.pageTitle !== undefined) change.pageTitle = opts.pageTitle;
  if (opts.pageDescription !== undefined) change.pageDescription = opts.pageDescription;
  if (opts.redirectUrl !== undefined) change.redirectUrl = opts.redirectUrl === false ? null : opts.redirectUrl;
  if (opts.captcha !== undefined) change.captcha = opts.captcha;
  if (opts.captchaDifficulty !== undefined) {
    if (!/^\d{1,9}$/.test(opts.captchaDifficulty)) throw new CliError('--captcha-difficulty: give a whole number', EXIT.usage);
    change.captchaDifficulty = Number(opts.captchaDifficulty);
  }
  if (opts.fields !== undefined) {
    let text = opts.fields;
    if (text.startsWith('@')) {
      try {
        text = readFileSync(text.slice(1), 'utf8');
      } catch {
        throw new CliError(`--fields: cannot read ${text.slice(1)}`, EXIT.usage);
      }
    }
    try {
      change.fields = JSON.parse(text);
    } catch {
      throw new CliError('--fields: not valid JSON (a JSON array of field definitions)', EXIT.usage);
    }
  }
  return {
    change,
    flags: {
      hostedPage: '--hosted-page',
      pageTitle: '--page-title',
      pageDescription: '--page-description',
      redirectUrl: '--redirect-url',
      fields: '--fields',
      captcha: '--captcha',
      captchaDifficulty: '--captcha-difficulty',
    },
  };
}
