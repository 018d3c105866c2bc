// The one error a store throws when the database cannot serve right now (SQLite locked, read-only or full;
// PostgreSQL down, restarting or out of connections). src/server/http.ts answers it with 503
// service_unavailable and Retry-After; it is never a 500.
export class DatabaseUnavailableError extends Error {
  constructor(
    message: string,
    /** Seconds a client should wait before trying again. */
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}
