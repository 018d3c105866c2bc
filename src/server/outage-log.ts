// During a database outage every request fails the same way, hundreds per second. Log the first
// request of each reason at once (with its request id), then at most one line per interval saying how
// many more there were, instead of one line per request.

const INTERVAL_MS = 5_000;

interface Pending {
  count: number;
  timer: NodeJS.Timeout;
}

const pending = new Map<string, Pending>();

/** Logs a request refused because the database is unavailable, throttled per reason. */
export function logUnavailable(requestId: string, method: string, path: string, reason: string): void {
  const held = pending.get(reason);
  if (held) {
    held.count++;
    return;
  }
  console.error(`[${requestId}] ${method} ${path}: database unavailable: ${reason}`);
  const entry: Pending = {
    count: 0,
    timer: setTimeout(() => {
      pending.delete(reason);
      if (entry.count) console.error(`database unavailable: ${entry.count} more requests in the last ${INTERVAL_MS / 1000} s: ${reason}`);
    }, INTERVAL_MS),
  };
  entry.timer.unref();
  pending.set(reason, entry);
}
