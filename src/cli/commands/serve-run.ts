// The body of `waitlist serve`, loaded only when the command runs.
import { startServer, type ServeConfig } from '../../server/serve.js';
import { selfCommand } from '../self-command.js';

const FORCE_EXIT_MS = 15_000;

export async function runServe(config: ServeConfig): Promise<void> {
  const running = await startServer(config);
  process.stdout.write(`waitlist listening on ${running.url}\n`);
  if ((config.host === '0.0.0.0' || config.host === '::') && !config.publicUrl && !config.allowedHosts?.length) {
    process.stderr.write(
      'Note: /api answers to IP addresses and localhost only; to reach it by a domain name, ' +
        'add --public-url https://<name> or --allowed-hosts <name> (docs/security.md).\n',
    );
  }
  if (!running.hasUsers) {
    // On stderr: stdout carries exactly one line with the URL, for scripts that read it. The command is
    // the one that works in the user's shell (`node bin/waitlist.js` after `npm start`, not `waitlist`).
    const waitlist = selfCommand({ script: process.argv[1] ?? 'bin/waitlist.js', env: process.env, cwd: process.cwd() });
    process.stderr.write(
      `No account yet. Create the first one with:\n  ${waitlist} signup --server ${running.url}\n` +
        `or open ${running.url}/ in a browser.\n`,
    );
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stderr.write(`${signal} received: finishing requests in flight, then closing\n`);
      const timer = setTimeout(() => {
        process.stderr.write('requests still open after 15 s: closing them\n');
        running.server.closeAllConnections();
      }, FORCE_EXIT_MS);
      timer.unref();
      running.close().then(resolve, (err) => {
        process.stderr.write(`error while closing: ${String(err)}\n`);
        process.exitCode = 1;
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
