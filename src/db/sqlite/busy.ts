// SQLite errors that mean "the database cannot serve right now", and the asynchronous retry for a
// locked database. The connection's busy_timeout is 20 ms, so a statement that meets another process's
// write lock fails at once instead of blocking the event loop; it is retried on timers with backoff,
// for a bounded time, and then answered 503 (DatabaseUnavailableError) with Retry-After.
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseUnavailableError } from '../errors.js';

/** How long a statement keeps retrying a locked database before the request gets 503. */
export const BUSY_BUDGET_MS = 1500;
const FIRST_DELAY_MS = 2;
const MAX_DELAY_MS = 200;

const code = (err: unknown) => ((err as { code?: unknown })?.code as string | undefined) ?? '';

/** Another connection holds the lock: worth retrying. */
export const isBusy = (err: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(code(err));

/** Locked, full, read-only or failing storage: the request cannot succeed now, and it is not its fault. */
export const isUnavailable = (err: unknown) => /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN|PROTOCOL|NOTADB|CORRUPT)/.test(code(err));

function describe(err: unknown): string {
  const c = code(err);
  if (/^SQLITE_(BUSY|LOCKED)/.test(c)) return 'the SQLite database is locked by another process';
  if (c.startsWith('SQLITE_FULL')) return 'the disk holding the SQLite database is full';
  if (c.startsWith('SQLITE_READONLY')) return 'the SQLite database is read-only';
  return `the SQLite database cannot be used (${c})`;
}

/** The error to throw for `err`: a DatabaseUnavailableError when the database cannot serve now, else `err`. */
export function translate(err: unknown): unknown {
  if (err instanceof DatabaseUnavailableError || !isUnavailable(err)) return err;
  return new DatabaseUnavailableError(describe(err), isBusy(err) ? 1 : 5, { cause: err });
}

/** Runs `fn`, retrying on a locked database with growing delays (never blocking), up to BUSY_BUDGET_MS. */
export async function withRetry<T>(fn: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + BUSY_BUDGET_MS;
  let delay = FIRST_DELAY_MS;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isBusy(err) || Date.now() + delay > deadline) throw translate(err);
      await sleep(delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  }
}

/** Delay before the next attempt of a batch that met a lock, or undefined once its budget is spent. */
export function nextDelay(startedAt: number, lastDelay: number): number | undefined {
  const delay = lastDelay === 0 ? FIRST_DELAY_MS : Math.min(lastDelay * 2, MAX_DELAY_MS);
  return Date.now() + delay > startedAt + BUSY_BUDGET_MS ? undefined : delay;
}
