// describeError: what the server logs for an unexpected error. drizzle's query errors carry every bound
// value (emails, token hashes, search terms) in their message; the log line must not.
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/server/log.js';

describe('describeError', () => {
  it('keeps the query and the driver error, drops the parameters', () => {
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "users_email_norm_unique"'), { code: '23505' });
    const err = new DrizzleQueryError(
      'insert into "users" ("email", "password_hash") values ($1, $2)',
      ['ada@example.com', '$2b$10$secrethash'],
      cause,
    );
    const line = describeError(err);
    expect(line).toContain('insert into "users"');
    expect(line).toContain('duplicate key value');
    expect(line).toContain('23505');
    expect(line).not.toContain('ada@example.com');
    expect(line).not.toContain('secrethash');
  });

  it('prints other errors with their stack, and non-errors as text', () => {
    expect(describeError(new TypeError('boom'))).toMatch(/^TypeError: boom\n\s+at /);
    expect(describeError('plain')).toBe('plain');
  });
});
