// Accounts: sign-up (first user, or open sign-up), log-in, and the local admin operations.
import { createHash } from 'node:crypto';
import { domainToASCII, domainToUnicode } from 'node:url';
import bcrypt from 'bcrypt';
import type { Store, UserRow } from '../db/store.js';
import type { LoginBody, SignupBody } from '../contract/schemas.js';
import { AppError } from './errors.js';
import { newId } from './ids.js';

export const BCRYPT_COST = 10;
// Compared against when the email is unknown, so both failures take the same time.
const DUMMY_HASH = bcrypt.hashSync('not-a-real-password', BCRYPT_COST);
const BAD_LOGIN = 'Invalid email or password';

// bcrypt reads only the first 72 bytes of what it hashes, so two passwords of up to 200 characters that
// share those bytes would both log in. A longer password is first reduced to a labelled SHA-256 (51
// characters, every byte of it counted); one of up to 72 bytes goes in as it is, as it always has, so
// every stored hash stays valid.
const BCRYPT_MAX_BYTES = 72;
const bcryptInput = (password: string) =>
  Buffer.byteLength(password) <= BCRYPT_MAX_BYTES ? password : `sha256:${createHash('sha256').update(password, 'utf8').digest('base64')}`;

/** The bcrypt hash stored for `password` (every character counts, however long it is). */
export const hashPassword = (password: string) => bcrypt.hash(bcryptInput(password), BCRYPT_COST);

const PLAIN_DOMAIN = /^(?!.*(?:^|\.)xn--)[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z][a-z0-9-]*$/i;

/**
 * The form emails are compared by (duplicates, log-in, search): NFC, local part lower-cased, domain in
 * its lower-case Unicode form whether it came as `müller.de` or `xn--mller-kva.de` (contract/email.ts).
 */
export function normEmail(email: string): string {
  const e = email.trim().normalize('NFC');
  const at = e.lastIndexOf('@');
  if (at < 0) return e.toLowerCase();
  const domain = e.slice(at + 1);
  // Nearly every domain is plain ASCII letters, digits, dots and hyphens with no punycode label and a
  // last label starting with a letter (so never read as an IPv4 number): its form is its lower case,
  // which the two conversions below would also give (test/unit/norm-email.test.ts), 1–2 µs sooner.
  if (PLAIN_DOMAIN.test(domain)) return `${e.slice(0, at).toLowerCase()}@${domain.toLowerCase()}`;
  const ascii = domainToASCII(domain);
  const unicode = ascii ? domainToUnicode(ascii) : '';
  return `${e.slice(0, at).toLowerCase()}@${(unicode || domain.toLowerCase()).normalize('NFC')}`;
}

const signupClosed = () => new AppError('signup_closed', 'Sign-up is closed on this server; ask its operator for an account');

/** Whether anyone may sign up now, and whether the server has any account (a fresh one has none). */
export async function authStatus(store: Store, openSignup: boolean): Promise<{ signupOpen: boolean; hasUsers: boolean }> {
  const hasUsers = (await store.countUsers()) > 0;
  return { signupOpen: openSignup || !hasUsers, hasUsers };
}

/** Creates an account; open when the server has no user yet or `openSignup` is on. */
export async function signup(store: Store, body: SignupBody, openSignup: boolean): Promise<UserRow> {
  // A closed server answers before the slow hash, so refused sign-ups cost no bcrypt work.
  if (!openSignup && (await store.countUsers()) > 0) throw signupClosed();
  const passwordHash = await hashPassword(body.password);
  if (openSignup) return insertUser(store, body, passwordHash);
  // Many concurrent first sign-ups all passed the check above: the store lets exactly one insert.
  const row = userRow(body, passwordHash);
  if ((await store.insertFirstUser(row)) === 'closed') throw signupClosed();
  return row;
}

/** Inserts a user with a bcrypt-hashed password; 409 email_taken when the email exists. */
export async function addUser(store: Store, body: SignupBody): Promise<UserRow> {
  return insertUser(store, body, await hashPassword(body.password));
}

function userRow(body: SignupBody, passwordHash: string): UserRow {
  const now = Date.now();
  return {
    id: newId('usr'),
    email: body.email,
    emailNorm: normEmail(body.email),
    name: body.name ? body.name : null,
    passwordHash,
    createdAt: now,
    updatedAt: now,
  };
}

async function insertUser(store: Store, body: SignupBody, passwordHash: string): Promise<UserRow> {
  const row = userRow(body, passwordHash);
  if ((await store.insertUser(row)) === 'duplicate') {
    throw new AppError('email_taken', 'An account with this email already exists');
  }
  return row;
}

/** Checks email and password; the same 401 for an unknown email and a wrong password. */
export async function login(store: Store, body: LoginBody): Promise<UserRow> {
  const user = await store.userByEmail(normEmail(body.email));
  const input = bcryptInput(body.password);
  let ok = await bcrypt.compare(input, user?.passwordHash ?? DUMMY_HASH);
  if (user && !ok && input !== body.password) {
    // A hash made before long passwords were reduced (bcrypt of the raw password: its first 72 bytes) is
    // accepted as it was then, and kept: a log-in cannot tell the owner's whole password from another
    // with the same first 72 bytes, so replacing the hash with what was typed could lock the owner out.
    // Setting the password again (`waitlist admin user reset-password`) makes every character count.
    ok = await bcrypt.compare(body.password, user.passwordHash);
  }
  if (!user || !ok) throw new AppError('unauthorized', BAD_LOGIN);
  return user;
}

/** Sets a new password and ends every session of the user. */
export async function resetPassword(store: Store, email: string, password: string): Promise<UserRow> {
  const user = await store.userByEmail(normEmail(email));
  if (!user) throw new AppError('not_found', `No user with email ${email}`);
  await store.setUserPassword(user.id, await hashPassword(password), Date.now());
  await store.deleteUserSessions(user.id);
  return user;
}
