// What Node's HTTP parser refuses before there is a request to route: headers over 16 KiB, a request
// that did not arrive whole within --request-timeout (or --import-timeout; its headers within --headers-timeout), bytes
// that are not HTTP. Node answered these with a bare status line and no body; they get the error
// envelope like every other error, then the connection closes (as Node does: the parser cannot go on).
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** [status, reason phrase, error.code, message] by the parser's error code. */
const ANSWERS: Record<string, readonly [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'payload_too_large', 'The request line and headers must be at most 16 KiB'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'payload_too_large', 'The chunk extensions of the body are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    'Request Timeout',
    'request_timeout',
    'The request did not arrive in time (headers within --headers-timeout, the whole request within --request-timeout, or --import-timeout for an import)',
  ],
};
const MALFORMED = [400, 'Bad Request', 'bad_request', 'Not a well-formed HTTP/1.1 request'] as const;

/** The error envelope, and the headers, of every answer here: the connection closes after it. */
const envelope = (code: string, message: string) => JSON.stringify({ status: 'error', message, error: { code }, timestamp: Date.now() });
const headers = (body: string) => ({
  'Content-Type': 'application/json; charset=utf-8',
  'Content-Length': Buffer.byteLength(body),
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  Connection: 'close',
});

/** Writes the envelope answer for a parser error code, unless a response on this connection has started. */
function answer(socket: Duplex, errCode: string | undefined): void {
  // As Node: answer only when no response on this connection has started to be written.
  const s = socket as Duplex & { _httpMessage?: { _headerSent?: boolean } | null };
  if (s.writable && !s._httpMessage?._headerSent) {
    const [status, reason, code, message] = ANSWERS[errCode ?? ''] ?? MALFORMED;
    const body = envelope(code, message);
    const head = Object.entries(headers(body)).map(([k, v]) => `${k}: ${v}\r\n`);
    s.write(`HTTP/1.1 ${status} ${reason}\r\n${head.join('')}\r\n${body}`);
  }
}

/** The server's 'clientError' listener: Node's own handling, with the envelope as the answer's body. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  answer(socket, err.code);
  socket.destroy(err);
}

/**
 * A request whose body did not arrive within its deadline (deadline.ts): 408 as Node answers it, then
 * closed. A request already answered (a route that did not need its body: 401, 404…) gets no second
 * answer: its connection is only closed.
 */
export function answerRequestTimeout(socket: Duplex, answered: boolean): void {
  if (!answered) answer(socket, 'ERR_HTTP_REQUEST_TIMEOUT');
  socket.destroy();
}

/**
 * A request with an `Expect` other than 100-continue: 417 in the error envelope, and the connection
 * closes (the body is not read). Node answers these itself before any 'request' event, bare, and
 * without its request timeout (off: deadline.ts) the connection could be held open by a trickle.
 */
export function expectationFailed(res: ServerResponse): void {
  const body = envelope('expectation_failed', 'Only "Expect: 100-continue" is supported');
  res.writeHead(417, headers(body));
  res.end(body);
}
