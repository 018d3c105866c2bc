// Raw TCP access to the server, for what fetch will not send: lying Content-Length, endless chunked
// bodies, half-sent headers.
import { connect, type Socket } from 'node:net';

export interface RawResult {
  /** Everything the server sent. */
  text: string;
  status: number | null;
  /** True when the server closed (or reset) the connection. */
  closed: boolean;
  ms: number;
}

export function openSocket(url: string): Promise<Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => resolve(s));
    s.once('error', reject);
  });
}

/**
 * Sends `head` (and keeps feeding `feed()` every `everyMs` while it returns data), collecting the reply
 * until the server closes the connection or `waitMs` passes.
 */
export async function raw(
  url: string,
  head: string | Buffer,
  opts: { feed?: () => string | Buffer | null; everyMs?: number; waitMs?: number } = {},
): Promise<RawResult> {
  const s = await openSocket(url);
  const start = Date.now();
  let text = '';
  let closed = false;
  s.on('data', (c) => (text += c.toString('latin1')));
  s.on('error', () => undefined);
  const done = new Promise<void>((resolve) => {
    s.once('close', () => {
      closed = true;
      resolve();
    });
    setTimeout(resolve, opts.waitMs ?? 5000);
  });
  s.write(head);
  let timer: NodeJS.Timeout | undefined;
  if (opts.feed) {
    timer = setInterval(() => {
      if (closed || s.destroyed) return;
      const more = opts.feed!();
      if (more === null) clearInterval(timer);
      else s.write(more);
    }, opts.everyMs ?? 5);
  }
  await done;
  if (timer) clearInterval(timer);
  const ms = Date.now() - start;
  s.destroy();
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  return { text, status: m ? Number(m[1]) : null, closed, ms };
}

/** The JSON body of the first response in a raw reply (Content-Length framed). */
export function rawJson(text: string): any {
  const i = text.indexOf('\r\n\r\n');
  const len = /content-length: (\d+)/i.exec(text.slice(0, i));
  const body = text.slice(i + 4, len ? i + 4 + Number(len[1]) : undefined);
  return JSON.parse(body);
}
