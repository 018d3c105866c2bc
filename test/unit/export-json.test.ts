// The hand-written entry JSON (exports, entry.created payloads) must equal JSON.stringify(toEntry(row))
// byte for byte.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entryJson, iso, toEntry } from '../../src/core/serialize.js';
import { JsonText, newEvent } from '../../src/core/outbox.js';
import type { EntryRow } from '../../src/db/store.js';
import { stringify } from 'csv-stringify/sync';
import { csvCell, ENTRY_COLUMNS, entryCsv, streamExport } from '../../src/server/export.js';

const text = fc.string({ unit: 'binary', maxLength: 40 });
const row = fc.record({
  id: text,
  projectId: text,
  email: text,
  emailNorm: text,
  name: fc.option(text),
  source: text,
  metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 3 })).map((m) => JSON.stringify(m)),
  ip: fc.option(text),
  country: fc.option(text),
  userAgent: fc.option(text),
  createdAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  updatedAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  deletedAt: fc.constant(null),
  status: fc.constantFrom('pending', 'waiting', 'invited', 'accepted'),
  position: fc.option(fc.integer({ min: 1, max: 2_000_000 })),
  ordinal: fc.nat(),
  k: fc.integer(),
  referralCode: fc.option(text),
  referredBy: fc.option(text),
  referrals: fc.nat(1000),
  statusTokenHash: fc.constant(null),
  confirmTokenHash: fc.constant(null),
  confirmSentAt: fc.constant(null),
  confirmResentAt: fc.constant(null),
  confirmedAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 })),
  invitedAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 })),
  acceptedAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 })),
  inviteCodeHash: fc.constant(null),
  inviteExpiresAt: fc.constant(null),
}) as fc.Arbitrary<EntryRow & { position: number | null }>;

describe('entryJson', () => {
  it('equals JSON.stringify(toEntry(row))', () => {
    fc.assert(
      fc.property(row, (r) => {
        expect(entryJson(r)).toBe(JSON.stringify(toEntry(r, r.position)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('an event payload with its entry as JsonText', () => {
  it('equals the payload built from toEntry (a join row: custom field answers, no position)', () => {
    const joined = fc.tuple(row, fc.dictionary(text, fc.jsonValue({ maxDepth: 2 })), text, fc.integer({ min: 0, max: 4_102_444_800_000 }));
    fc.assert(
      fc.property(joined, ([r, answers, projectId, now]) => {
        const { position: _, ...entry } = { ...r, fields: JSON.stringify(answers) };
        const spliced = newEvent('entry.created', projectId, new JsonText(entryJson(entry)), now).payload;
        expect(spliced).toBe(newEvent('entry.created', projectId, toEntry(entry), now).payload);
        expect(JSON.parse(spliced).data.fields).toEqual(JSON.parse(JSON.stringify(answers)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('entryCsv', () => {
  // The reference: the entry object through csv-stringify, every cell quoted (how rows were written
  // before entryCsv), custom field answers as extra columns.
  const reference = (r: EntryRow & { position: number | null }, keys: string[]) => {
    const e = toEntry(r, r.position) as unknown as Record<string, unknown>;
    const answers = e.fields as Record<string, unknown>;
    const cells = [...ENTRY_COLUMNS.map((c) => csvCell(e[c])), ...keys.map((k) => csvCell(Object.hasOwn(answers, k) ? answers[k] : null))];
    return stringify([cells], { quoted: true, quoted_empty: true });
  };
  const csvText = fc.oneof(text, fc.constantFrom('=cmd', '+1', '-x', '@a', '\tt', 'a"b', '"', 'x,y', 'l1\nl2', ''));
  const withFields = fc
    .tuple(
      row,
      fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.oneof(csvText, fc.boolean(), fc.integer(), fc.array(csvText, { maxLength: 3 }))),
      fc.subarray(['a', 'b', 'c', 'zz']),
      fc.option(csvText),
    )
    .map(([r, answers, keys, email]) => ({ r: { ...r, fields: JSON.stringify(answers), email: email ?? r.email }, keys }));

  it('equals the csv-stringify line of toEntry(row), custom fields included', () => {
    fc.assert(
      fc.property(withFields, ({ r, keys }) => {
        expect(entryCsv(r, keys)).toBe(reference(r, keys));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('iso', () => {
  it('equals Date#toISOString for any epoch ms', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 }), (ms) => {
        expect(iso(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
    for (const ms of [0, 86_399_999, 86_400_000, 1_795_291_089_410, 253_402_300_799_999]) expect(iso(ms)).toBe(new Date(ms).toISOString());
  });
});

describe('streamExport', () => {
  // Rows are encoded into 256 KiB buffers: the file must be the rows' text exactly, across buffer
  // boundaries, with multi-byte characters, a row longer than a buffer, and every format's head and tail.
  const base = fc.sample(row, { numRuns: 1, seed: 7 })[0]!;
  const rows = Array.from({ length: 3000 }, (_, i) => ({
    ...base,
    id: `ent_${i}`,
    status: 'waiting' as const,
    position: i + 1,
    name: i === 1500 ? 'Z'.repeat(400_000) : `Zoë ${'日本'.repeat(i % 50)} 😀 ${i}`,
    fields: '{}',
  }));
  const serve = async (format: 'ndjson' | 'json' | 'csv', chunks: (typeof rows)[]) => {
    const server = createServer((_req, res) => {
      void streamExport(
        res,
        'p',
        format,
        (async function* () {
          yield* chunks;
        })(),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      return Buffer.from(await res.arrayBuffer()).toString('utf8');
    } finally {
      server.close();
    }
  };
  const chunked = [rows.slice(0, 1000), rows.slice(1000, 2000), rows.slice(2000)];

  it('ndjson, json and csv files are the rows, byte for byte', async () => {
    expect(await serve('ndjson', chunked)).toBe(rows.map((r) => `${entryJson(r)}\n`).join(''));
    expect(JSON.parse(await serve('json', chunked))).toEqual(rows.map((r) => JSON.parse(entryJson(r))));
    const csv = await serve('csv', chunked);
    expect(csv).toBe(stringify([[...ENTRY_COLUMNS]], { quoted: true, quoted_empty: true }) + rows.map((r) => entryCsv(r, [])).join(''));
  });

  it('an empty export is a valid empty file', async () => {
    expect(await serve('json', [])).toBe('[\n]\n');
    expect(await serve('ndjson', [])).toBe('');
  });
});
