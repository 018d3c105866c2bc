// Proof-of-work captcha (ALTCHA protocol v1, altcha-lib on the server). A challenge is
// SHA-256(salt + n) for a secret n in [0, captchaDifficulty]; the browser finds n by trying numbers, the
// server checks one hash and one HMAC. The salt carries `project=<id>&expires=<unix s>`, covered by the
// HMAC (the signature is an HMAC of the challenge, which hashes the salt), so a solution cannot be moved
// to another project or kept past its expiry. The HMAC key is one random secret kept in the database
// (server_secrets), so every instance issues and accepts the same challenges; each solution is
// recorded in captcha_solutions until its expiry, so it is accepted once across all instances.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createChallenge, extractParams } from 'altcha-lib/v1';
import type { ProjectRow, Store } from '../db/store.js';
import { invalidField } from './errors.js';
import { serverKey } from './server-keys.js';
import { featureSettings } from './settings.js';

/** How long a challenge may be solved and used. */
export const CHALLENGE_TTL_MS = 10 * 60_000;
const SECRET_NAME = 'captcha-hmac-v1';

/** The server-wide HMAC key (created by whichever instance needs it first). */
const hmacKey = (store: Store) => serverKey(store, SECRET_NAME);

export interface AltchaChallenge {
  algorithm: 'SHA-256';
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

/** A fresh challenge for a project, at its difficulty. */
export async function challengeFor(store: Store, project: ProjectRow, now = Date.now()): Promise<AltchaChallenge> {
  const c = await createChallenge({
    algorithm: 'SHA-256',
    hmacKey: await hmacKey(store),
    maxnumber: featureSettings(project).captchaDifficulty,
    expires: new Date(now + CHALLENGE_TTL_MS),
    params: { project: project.id },
  });
  return c as AltchaChallenge;
}

const bad = (message: string) => invalidField('altcha', message);

interface Payload {
  algorithm?: unknown;
  challenge?: unknown;
  number?: unknown;
  salt?: unknown;
  signature?: unknown;
}

function decode(altcha: string): Payload | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(altcha, 'base64').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Payload) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * altcha-lib's verifySolution, with node:crypto instead of WebCrypto: the same two checks
 * (SHA-256(salt + number) is the challenge; HMAC-SHA256(key, challenge) is the signature), done
 * synchronously and compared in constant time. WebCrypto's async calls (a key import per check)
 * halved join throughput with the captcha on.
 */
function verify(salt: string, n: number, challenge: string, signature: string, key: string): boolean {
  const hash = createHash('sha256')
    .update(salt + n)
    .digest('hex');
  const mac = createHmac('sha256', key).update(hash).digest('hex');
  const eq = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
  const okHash = eq(hash, challenge);
  const okMac = eq(mac, signature);
  return okHash && okMac;
}

/** When the project asks for a captcha: 400 validation_failed on `altcha` unless this is a valid,
 * unexpired, unused solution of one of this project's challenges (and then it is used up). */
export async function checkCaptcha(store: Store, project: ProjectRow, altcha: string | undefined, now = Date.now()): Promise<void> {
  if (featureSettings(project).captcha !== 'pow') return;
  if (!altcha) throw bad('Solve the proof-of-work challenge first (GET /v1/waitlist/:slug/challenge)');
  const p = decode(altcha);
  if (
    !p ||
    p.algorithm !== 'SHA-256' ||
    typeof p.salt !== 'string' ||
    typeof p.signature !== 'string' ||
    typeof p.challenge !== 'string' ||
    typeof p.number !== 'number' ||
    !Number.isSafeInteger(p.number) ||
    p.number < 0
  ) {
    throw bad('The challenge solution is malformed');
  }
  const params = extractParams(p as never);
  const expiresSec = Number(params.expires);
  if (!Number.isFinite(expiresSec) || expiresSec * 1000 < now) throw bad('The challenge has expired; get a new one');
  if (!verify(p.salt, p.number, p.challenge, p.signature, await hmacKey(store))) throw bad('The challenge solution is wrong');
  if (params.project !== project.id) throw bad('This challenge belongs to another waitlist');
  if (!(await store.useCaptchaSolution(p.signature, expiresSec * 1000, now))) throw bad('This challenge solution was already used');
}
