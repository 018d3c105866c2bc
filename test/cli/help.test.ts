// --help and --version: every command documents itself with examples, and help loads no database,
// bcrypt or command bodies (subcommands are lazy). Version and lazy loading run as processes; the
// help texts and usage errors in-process.
import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/server.js';
import { cli, cliProcess } from './cli.js';

const COMMANDS = [
  ['signup'],
  ['login'],
  ['logout'],
  ['whoami'],
  ['project', 'list'],
  ['project', 'get'],
  ['project', 'create'],
  ['project', 'update'],
  ['project', 'delete'],
  ['key', 'list'],
  ['key', 'get'],
  ['key', 'create'],
  ['key', 'update'],
  ['key', 'delete'],
  ['entry', 'list'],
  ['entry', 'get'],
  ['entry', 'update'],
  ['entry', 'delete'],
  ['entry', 'export'],
];

describe('help', () => {
  it('--version prints the package version', async () => {
    const r = await cliProcess(['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('every command has help with examples, exit 0', async () => {
    const results = await Promise.all(COMMANDS.map((c) => cli([...c, '--help'])));
    results.forEach((r, i) => {
      expect(r.exitCode, COMMANDS[i]!.join(' ')).toBe(0);
      expect(r.stdout, COMMANDS[i]!.join(' ')).toContain('Examples:');
      expect(r.stdout).toContain(`$ waitlist ${COMMANDS[i]!.join(' ')}`);
    });
  });

  it('documents exactly the contract flags (and never --password)', async () => {
    const flags = async (...c: string[]) => (await cli([...c, '--help'])).stdout;
    const signup = await flags('signup');
    for (const f of ['--server <url>', '--email <email>', '--name <name>', '--password-stdin']) expect(signup).toContain(f);
    expect(signup).not.toMatch(/--password\b(?!-stdin)/);
    const list = await flags('entry', 'list');
    for (const f of ['--project', '--search <q>', '--page <n>', '--limit <n>', '--all', '--json']) expect(list).toContain(f);
    const exp = await flags('entry', 'export');
    for (const f of ['--project', '--format <format>', '--output <file>', '--search <q>']) expect(exp).toContain(f);
    expect(await flags('entry', 'update')).toContain('--metadata <json>');
    expect(await flags('project', 'delete')).toContain('--yes');
  });

  it('--help loads neither the database, bcrypt, zod nor any command body', async () => {
    const r = await execa('node', ['--import', join(ROOT, 'test/cli/fixtures/trace-imports.mjs'), BIN, '--help'], { reject: false });
    expect(r.exitCode).toBe(0);
    const loaded = String(r.stderr)
      .split('\n')
      .filter((l) => l.startsWith('LOAD '));
    expect(loaded.some((l) => l.includes('dist/cli/main.js'))).toBe(true);
    for (const heavy of [
      'better-sqlite3',
      'drizzle',
      'bcrypt',
      'zod',
      'conf',
      'cli-table3',
      '@inquirer',
      'undici',
      '/dist/db/',
      '/dist/server/',
      '-run.js',
    ]) {
      expect(
        loaded.filter((l) => l.includes(heavy)),
        heavy,
      ).toEqual([]);
    }
  });

  it('a usage error exits 2 with a hint and nothing on stdout', async () => {
    const r = await cli(['project', 'list', '--nmae', 'x']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("unknown option '--nmae'");
    const none = await cli(['nonsense']);
    expect(none.exitCode).toBe(2);
  });

  it("--help after an unknown command word is the unknown command, exit 2, not the parent group's help", async () => {
    for (const args of [
      ['bogus', '--help'],
      ['entry', 'bogus', '-h'],
      ['admin', 'user', 'bogus', '--help'],
    ]) {
      const r = await cli(args);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr).toContain(`unknown command '${args.at(-2)}'`);
    }
    // A command's own arguments and known words are untouched.
    const known = await cli(['entry', 'get', 'ent_x', '--help']);
    expect(known.exitCode).toBe(0);
    expect(known.stdout).toContain('Usage: waitlist entry get');
  });

  it('a command group without its subcommand shows its usage on stderr, exit 2', async () => {
    for (const group of [['entry'], ['project'], ['key'], ['admin'], ['admin', 'user']]) {
      const r = await cli(group);
      expect(r.exitCode, group.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Usage: waitlist ${group.join(' ')} [options] [command]`);
    }
  });
});
