// Whole-request deadlines, checked every second by the server (serve.ts) in place of Node's own
// requestTimeout, so that one route can give its request longer once it knows who is asking: an
// import upload of a project's owner gets --import-timeout (a file of millions of rows takes minutes
// to send and read), every other request --request-timeout. A request costs two property stores and
// a clock read: no timer and no listener per request (a listener on every response cost the join
// path ~10 %, docs/performance.md round eighteen). The headers keep Node's own --headers-timeout.
import type { IncomingMessage } from 'node:http';

const STARTED = Symbol('waitlist.requestStarted');
const ALLOWED = Symbol('waitlist.requestAllowedMs');

type Timed = IncomingMessage & { [STARTED]?: number; [ALLOWED]?: number };

/** Marks when a request's headers arrived (its deadline counts from then). */
export function requestStarted(req: IncomingMessage, now: number): void {
  (req as Timed)[STARTED] = now;
}

/** Gives this request `ms` from its start to arrive whole, instead of the server's --request-timeout. */
export function allowRequestFor(req: IncomingMessage, ms: number): void {
  (req as Timed)[ALLOWED] = ms;
}

/** True when the request's body is still arriving past its deadline (`defaultMs` unless allowRequestFor). */
export function overdue(req: IncomingMessage, now: number, defaultMs: number): boolean {
  const r = req as Timed;
  return !r.complete && r[STARTED] !== undefined && now - r[STARTED] > (r[ALLOWED] ?? defaultMs);
}
