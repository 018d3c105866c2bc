// The Bearer challenge (RFC 6750 §3) of the join route's 401s. Core refuses a key with a plain
// `unauthorized` AppError; the HTTP header that tells a client how to authenticate is built here.
import { AppError } from '../core/errors.js';

const CHALLENGE = 'Bearer realm="waitlist"';

/** The same error with `WWW-Authenticate` added (`error="invalid_token"` when a key was presented but refused). */
function withChallenge(err: AppError, invalidToken: boolean): AppError {
  const value = invalidToken ? `${CHALLENGE}, error="invalid_token"` : CHALLENGE;
  return new AppError(err.code, err.message, err.issues, { ...err.headers, 'WWW-Authenticate': value });
}

/** Awaits a key check; a 401 from it gets the Bearer challenge header, anything else passes through. */
export async function bearerChallenge<T>(check: Promise<T>): Promise<T> {
  try {
    return await check;
  } catch (e) {
    if (e instanceof AppError && e.code === 'unauthorized') throw withChallenge(e, false);
    throw e;
  }
}

/** 401 for a valid key used on another project's waitlist. */
export const wrongProjectKey = () => withChallenge(new AppError('unauthorized', 'This API key belongs to another project'), true);
