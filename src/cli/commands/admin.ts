// `waitlist admin …`: local operator commands working directly on the server's database.
import type { Command } from 'commander';
import { addDbOptions, dbConfig } from './db-options.js';
import type { CliContext } from '../io.js';

export function registerAdmin(program: Command, ctx: CliContext) {
  const admin = program
    .command('admin')
    .description('Operator commands that work directly on an existing database (--db / --database-url); never create one');
  const user = admin.command('user').description('Manage accounts');

  addDbOptions(
    user
      .command('add')
      .description('Create an account (works even when sign-up is closed)')
      .requiredOption('--email <email>', 'email address')
      .option('--name <name>', 'display name')
      .option('--password-stdin', 'read the password from standard input'),
    ctx.env,
  )
    .addHelpText('after', '\nExample:\n  $ printf %s "$PASSWORD" | waitlist admin user add --email ops@example.com --password-stdin')
    .action(async (opts, cmd: Command) => (await import('./admin-run.js')).addUser(ctx, dbConfig(opts, cmd), opts));

  addDbOptions(
    user
      .command('reset-password')
      .description('Set a new password for an account and end all of its sessions')
      .requiredOption('--email <email>', 'email address')
      .option('--password-stdin', 'read the password from standard input'),
    ctx.env,
  )
    .addHelpText('after', '\nExample:\n  $ waitlist admin user reset-password --email ops@example.com')
    .action(async (opts, cmd: Command) => (await import('./admin-run.js')).resetPassword(ctx, dbConfig(opts, cmd), opts));

  const project = admin.command('project').description('Manage projects across all users');
  addDbOptions(project.command('restore <projectId>').description('Bring back a soft-deleted project with its keys and entries'), ctx.env)
    .addHelpText('after', '\nExample:\n  $ waitlist admin project restore prj_01JD3X…')
    .action(async (projectId: string, opts, cmd: Command) =>
      (await import('./admin-run.js')).restoreProject(ctx, dbConfig(opts, cmd), projectId),
    );
}
