// One webhook attempt: sign the event per the Standard Webhooks specification and POST it, 10 s at
// most, to the address the SSRF check approved.
//   webhook-id: the event id · webhook-timestamp: epoch seconds ·
//   webhook-signature: "v1," + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)),
//   where key is the base64-decoded part of the secret after "whsec_".
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { pinnedLookup, resolveWithin, type ResolvedTarget } from './ssrf.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;

/** A new signing secret: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** The `webhook-signature` header value for one message. */
export function signWebhook(secret: string, id: string, timestampSec: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSec}.${body}`).digest('base64')}`;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/**
 * The secrets a delivery is signed with at `now`: the webhook's secret, and the one its last rotation
 * replaced until that one expires.
 */
export function signingSecrets(
  w: { secret: string; previousSecret: string | null; previousSecretExpiresAt: number | null },
  now = Date.now(),
): string[] {
  return w.previousSecret && w.previousSecretExpiresAt !== null && now < w.previousSecretExpiresAt
    ? [w.secret, w.previousSecret]
    : [w.secret];
}

/** Sends one POST signed with each of `secrets` (space-separated signatures); never throws. */
export async function sendWebhook(
  urlText: string,
  secrets: readonly string[],
  eventId: string,
  body: string,
  allowPrivate: boolean,
  timeoutMs = WEBHOOK_TIMEOUT_MS,
): Promise<AttemptResult> {
  let url: URL;
  try {
    url = new URL(urlText);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    return { ok: false, statusCode: null, error: 'invalid URL' };
  }
  // The whole attempt, DNS included, fits in `timeoutMs`: a slow resolver holds a send slot no longer.
  const deadline = Date.now() + timeoutMs;
  const timedOut = { ok: false, statusCode: null, error: `timeout after ${timeoutMs / 1000} s` } as const;
  let target: ResolvedTarget;
  try {
    const resolved = await resolveWithin(url, allowPrivate, timeoutMs);
    if (!resolved) return timedOut;
    target = resolved;
  } catch (err) {
    return { ok: false, statusCode: null, error: `refused: ${(err as Error).message}` };
  }
  const ts = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'waitlist-webhooks/1',
    'webhook-id': eventId,
    'webhook-timestamp': String(ts),
    'webhook-signature': secrets.map((secret) => signWebhook(secret, eventId, ts, body)).join(' '),
  };
  return new Promise<AttemptResult>((resolve) => {
    const mod = url.protocol === 'https:' ? https : http;
    let done = false;
    const finish = (r: AttemptResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = mod.request(url, { method: 'POST', headers, lookup: pinnedLookup(target) as never, agent: false }, (res) => {
      const code = res.statusCode ?? 0;
      // The status line decides. The body is not needed: it is not read (a receiver answering 200 and
      // then a slow or endless body would otherwise turn an acknowledged delivery into a timeout and a
      // retry, or be downloaded in full), and the connection (never reused: agent false) is closed.
      finish({ ok: code >= 200 && code < 300, statusCode: code, error: code >= 200 && code < 300 ? null : `HTTP ${code}` });
      res.destroy();
    });
    const timer = setTimeout(
      () => {
        req.destroy();
        finish(timedOut);
      },
      Math.max(0, deadline - Date.now()),
    );
    req.on('error', (err) => finish({ ok: false, statusCode: null, error: err.message.slice(0, 200) }));
    req.end(body);
  });
}
