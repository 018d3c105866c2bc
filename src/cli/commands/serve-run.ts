// The body of `waitlist serve`, loaded only when the command runs.
import { startServer, type ServeConfig } from '../../server/serve.js';
import { CliError, EXIT } from '../errors.js';
import { selfCommand } from '../self-command.js';

/**
 * How long shutdown waits for the requests in flight: past it they are closed (their clients see the
 * connection drop) and the server exits as usual. Repeated signals do not shorten it.
 */
const FORCE_EXIT_MS = 15_000;

export async function runServe(config: ServeConfig): Promise<void> {
  // Listening for signals from the start: one that comes while the server starts (the database opening,
  // migrations) is kept, and once started the server stops as it would later (closes the database,
  // exit 0). Without a listener the default action ended the process mid-start with 130/143. The
  // listener is never swapped: with none for an instant, a signal already on its way could be dropped.
  let early: NodeJS.Signals | undefined;
  let onSignal = (signal: NodeJS.Signals) => {
    early ??= signal;
  };
  // `on`, not `once`, and removed only if the server fails to start: with no listener left, a repeated
  // signal would end the process at once (exit 130/143). Signal listeners do not keep the process alive.
  const relay = (signal: NodeJS.Signals) => onSignal(signal);
  process.on('SIGINT', relay);
  process.on('SIGTERM', relay);
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer(config);
  } catch (err) {
    // Not started: a signal from now on ends the process as it would without a server (130/143).
    process.off('SIGINT', relay);
    process.off('SIGTERM', relay);
    throw err;
  }
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
  await new Promise<void>((resolve, reject) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      // A second Ctrl-C or SIGTERM (an impatient operator, a supervisor repeating itself) must not kill the
      // process: that would drop the requests being answered. The deadline below bounds the wait.
      if (stopping) {
        process.stderr.write(
          `${signal} received again: already shutting down, finishing requests in flight (closed after ${FORCE_EXIT_MS / 1000} s at most)\n`,
        );
        return;
      }
      stopping = true;
      // Stops accepting before it returns: once the line below is out, a new connection is refused.
      const closed = running.close();
      process.stderr.write(`${signal} received: finishing requests in flight, then closing\n`);
      const timer = setTimeout(() => {
        process.stderr.write(`requests still open after ${FORCE_EXIT_MS / 1000} s: closing them\n`);
        running.server.closeAllConnections();
      }, FORCE_EXIT_MS);
      timer.unref();
      // A failed close is the command's failure: main() prints it and returns exit 1 (setting
      // process.exitCode here would be overwritten by bin/waitlist.js with main()'s result).
      closed.then(resolve, (err: unknown) =>
        reject(new CliError(`error while closing: ${(err as Error)?.message ?? String(err)}`, EXIT.error)),
      );
    };
    onSignal = stop;
    if (early) stop(early);
  });
}
