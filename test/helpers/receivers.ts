// Real receivers for the events tests: an HTTP webhook endpoint that verifies Standard Webhooks
// signatures with the `standardwebhooks` package (not our code), and an SMTP server (smtp-server)
// that parses what it receives (mailparser).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  type: string;
  body: any;
  headers: Record<string, string>;
}

export interface HookReceiver {
  url: string;
  /** Verified messages, every attempt that was answered 2xx. */
  received: Received[];
  /** Attempts per webhook-id (answered or not). */
  attempts: Map<string, number>;
  /** Signature failures (should stay 0). */
  badSignatures: number;
  setSecret(secret: string): void;
  /** Status to answer for the n-th attempt (1-based) of an id; default 200. */
  answer: (attempt: number, id: string) => number;
  delayMs: number;
  close(): Promise<void>;
}

export async function startHookReceiver(): Promise<HookReceiver> {
  let wh: Webhook | null = null;
  const r: HookReceiver = {
    url: '',
    received: [],
    attempts: new Map(),
    badSignatures: 0,
    setSecret: (s) => (wh = new Webhook(s)),
    answer: () => 200,
    delayMs: 0,
    close: () => new Promise((res) => (server.closeAllConnections(), server.close(() => res()))),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const id = headers['webhook-id'] ?? '';
      const n = (r.attempts.get(id) ?? 0) + 1;
      r.attempts.set(id, n);
      let payload: any;
      try {
        payload = wh!.verify(body, headers);
      } catch {
        r.badSignatures++;
        res.writeHead(400).end();
        return;
      }
      const status = r.answer(n, id);
      setTimeout(() => {
        if (status >= 200 && status < 300) r.received.push({ id, type: payload.type, body: payload, headers });
        res.writeHead(status).end('ok');
      }, r.delayMs);
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return r;
}

/** An HTTP endpoint that reads each request and never answers it; counts them. */
export interface Blackhole {
  url: string;
  open: number;
  /** The most open at once since the last reset. */
  peak: number;
  /** Requests the sender gave up on (its timeout closed them). */
  closed: number;
  close(): Promise<void>;
}

export async function startBlackhole(): Promise<Blackhole> {
  const b: Blackhole = { url: '', open: 0, peak: 0, closed: 0, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    b.open++;
    b.peak = Math.max(b.peak, b.open);
    req.resume();
    res.on('close', () => {
      b.open--;
      b.closed++;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  b.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  b.close = () => new Promise((r) => (server.closeAllConnections(), server.close(() => r())));
  return b;
}

export interface MailReceiver {
  port: number;
  mails: ParsedMail[];
  /** Raw header lines of each mail, lower-cased names. */
  rawHeaders: Map<string, string>[];
  close(): Promise<void>;
}

/** An SMTP server on 127.0.0.1 (no TLS). With `password`, AUTH is required and only user/password pass. */
export async function startMailReceiver(auth?: { user: string; password: string }): Promise<MailReceiver> {
  const m: MailReceiver = { port: 0, mails: [], rawHeaders: [], close: async () => undefined };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(a, _session, cb) {
      if (auth && a.username === auth.user && a.password === auth.password) cb(null, { user: a.username });
      else cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, _session, cb) {
      simpleParser(stream)
        .then((mail) => {
          m.mails.push(mail);
          m.rawHeaders.push(new Map(mail.headerLines.map((h) => [h.key.toLowerCase(), h.line.slice(h.line.indexOf(':') + 1).trim()])));
          cb();
        })
        .catch(cb);
    },
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  m.port = (server.server.address() as AddressInfo).port;
  m.close = () => new Promise((res) => server.close(() => res()));
  return m;
}

/** Polls until `check` is truthy (or fails after `ms`). */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  ms = 15_000,
  what = 'condition',
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as Exclude<T, false | 0 | '' | null | undefined>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
