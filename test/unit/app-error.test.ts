// An AppError is an answer to the client, made without a stack trace (a flood of wrong keys is refused
// with thousands a second: docs/performance.md, round twenty-four); every other error keeps its stack,
// and the process-wide stack limit is left as it was.
import { describe, expect, it } from 'vitest';
import { AppError, notFound } from '../../src/core/errors.js';

describe('AppError', () => {
  it('carries its code, status and message, with a stack of its first line only', () => {
    const err = notFound('Entry');
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: 'AppError', code: 'not_found', status: 404, message: 'Entry not found' });
    expect(err.stack).toBe('AppError: Entry not found');
  });

  it('leaves Error.stackTraceLimit as it found it, so other errors keep their stacks', () => {
    const before = Error.stackTraceLimit;
    Error.stackTraceLimit = 7;
    try {
      new AppError('unauthorized', 'Invalid API key');
      expect(Error.stackTraceLimit).toBe(7);
      const other = new Error('a bug');
      expect(other.stack!.split('\n').length).toBeGreaterThan(1);
    } finally {
      Error.stackTraceLimit = before;
    }
  });
});
