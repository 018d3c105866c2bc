// The CLI's exit codes and its one error type. Kept apart from main.ts so commands never import the
// program (which imports every command): no import cycle.

/** 0 ok, 1 error, 2 usage, 4 not logged in (or the session was refused). */
export const EXIT = { ok: 0, error: 1, usage: 2, auth: 4 } as const;

/** Thrown by commands to end with a message on stderr and a given exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
