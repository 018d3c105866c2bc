// The one error type of the application. Core throws it; src/server/http.ts turns it into an envelope.
import { ERROR_STATUS, type ErrorCode, type Issue } from '../contract/types.js';

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: Issue[],
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
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
