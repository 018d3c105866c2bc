// The one error type of the application. Core throws it; src/server/http.ts turns it into an envelope.
import { ERROR_STATUS, type ErrorCode, type Issue } from '../contract/types.js';

/**
 * An answer to the client (404, 401, 409, a validation failure…), never a bug to trace: it is made
 * without a stack trace. Capturing one cost about 6 µs an error in-process, and a flood of wrong keys is
 * refused with thousands of these a second (docs/performance.md, round twenty-four). Its `stack` is its
 * first line only; errors that are bugs are other classes and keep theirs.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: Issue[],
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);

/** A validation error for one field. */
export const invalidField = (path: string, message: string) => new AppError('validation_failed', 'Validation failed', [{ path, message }]);

/** 503 service_unavailable with Retry-After: the server cannot do this right now (database busy or down). */
export const unavailable = (message: string, retryAfterSeconds = 1) =>
  new AppError('service_unavailable', message, undefined, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
