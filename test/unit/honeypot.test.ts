// Issue 10 #3: a honeypot named like an inherited property (stored before such names were refused)
// must not treat every join as a bot: only a field actually present in the body counts.
import { describe, expect, it } from 'vitest';
import { projectSettingsBody, reservedHoneypot } from '../../src/contract/schemas.js';
import { honeypotFilled } from '../../src/core/settings.js';
import type { ProjectRow } from '../../src/db/store.js';

const project = (honeypotField: string) => ({ honeypotField }) as ProjectRow;
const INHERITED = ['valueOf', 'toString', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', 'constructor'];

describe('honeypot names', () => {
  it.each(INHERITED)('%s: a body without the field is not a bot, one with it filled is', (name) => {
    expect(honeypotFilled(project(name), { email: 'a@example.com' })).toBe(false);
    expect(honeypotFilled(project(name), JSON.parse(`{"email":"a@example.com","${name}":"x"}`))).toBe(true);
  });

  it.each(INHERITED)('%s is refused in settings', (name) => {
    expect(reservedHoneypot(name)).toBe(true);
    expect(projectSettingsBody.safeParse({ honeypotField: name }).success).toBe(false);
  });

  it('ordinary names stay allowed', () => {
    for (const name of ['website', 'url', 'company_fax', 'ValueOf'])
      expect(projectSettingsBody.safeParse({ honeypotField: name }).success).toBe(true);
  });
});
