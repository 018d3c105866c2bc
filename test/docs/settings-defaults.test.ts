// The defaults of the project settings, as the manual states them: the `default` column of the settings
// tables in docs/events.md, docs/lifecycle.md and docs/signup.md must equal the contract's defaults, which
// the HTTP and CLI tests compare the server's answers with (SETTINGS_DEFAULTS in test/helpers/api.ts).
// So the docs, the contract and the server cannot drift apart, and each literal value is written once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventSettingsDefaults } from '../../src/contract/settings-events.js';
import { lifecycleSettingsDefaults } from '../../src/contract/settings-lifecycle.js';
import { surfaceSettingsDefaults } from '../../src/contract/settings-surface.js';
import { ROOT } from '../helpers/server.js';

/** setting → the first `code` of its `default` cell, parsed as JSON, from the table headed `| setting | … default …`. */
function documentedDefaults(doc: string): Record<string, unknown> {
  const lines = readFileSync(join(ROOT, 'docs', doc), 'utf8').split('\n');
  const head = lines.findIndex((l) => /^\| setting \|/.test(l));
  if (head < 0) throw new Error(`docs/${doc} has no settings table`);
  const cells = (l: string) =>
    l
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
  const col = cells(lines[head]!).indexOf('default');
  const out: Record<string, unknown> = {};
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    const row = cells(line);
    const name = /^`(\w+)`$/.exec(row[0]!)?.[1];
    const value = /`([^`]+)`/.exec(row[col] ?? '')?.[1];
    if (name && value) out[name] = JSON.parse(value);
  }
  return out;
}

describe('settings defaults in the docs', () => {
  it.each([
    ['events.md', eventSettingsDefaults],
    ['lifecycle.md', lifecycleSettingsDefaults],
    ['signup.md', surfaceSettingsDefaults],
  ])('docs/%s states every default of its settings as the contract has it', (doc, defaults) => {
    expect(documentedDefaults(doc)).toEqual(defaults);
  });
});
