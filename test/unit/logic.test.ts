// Pure logic without a server: slugify, jsonDepth, parseKey, escapeLike, zodIssues, paging, query schemas.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { entryListQuery, joinBody, jsonDepth, pageQuery, SLUG_RE, slugSchema } from '../../src/contract/schemas.js';
import { parseKey } from '../../src/core/keys.js';
import { slugify } from '../../src/contract/slug.js';
import { escapeLike } from '../../src/db/store.js';
import { zodIssues } from '../../src/server/http.js';
import { pageArgs, pageOf } from '../../src/server/paging.js';

describe('slugify', () => {
  it.each([
    ['My App', 'my-app'],
    ['  Hello,   World!  ', 'hello-world'],
    ['Café Déjà Vu', 'cafe-deja-vu'],
    ['a--b__c', 'a-b-c'],
    ['---', ''],
    ['日本', ''],
    ['UPPER lower 123', 'upper-lower-123'],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('never exceeds 48 chars nor ends with a hyphen when cut', () => {
    const s = slugify(`${'abcdefghi '.repeat(10)}`);
    expect(s.length).toBeLessThanOrEqual(48);
    expect(s).toMatch(SLUG_RE);
    const cut = slugify(`${'a'.repeat(47)} bcd`);
    expect(cut).toBe('a'.repeat(47));
  });

  it('every non-empty result matches the slug pattern', () => {
    for (const name of ['x', 'Ünïcödé Näme', '1 2 3', 'a.b.c', 'tab\there', 'emoji 🚀 launch']) {
      const s = slugify(name);
      if (s) expect(s).toMatch(SLUG_RE);
    }
  });
});

describe('slugSchema', () => {
  it.each([
    ['abc', true],
    ['a'.repeat(48), true],
    ['a'.repeat(49), false],
    ['ab', false],
    ['a-b', true],
    ['a--b', false],
    ['-ab', false],
    ['ab-', false],
    ['aBc', false],
  ])('%j valid=%s', (slug, valid) => {
    expect(slugSchema.safeParse(slug).success).toBe(valid);
  });
});

describe('jsonDepth', () => {
  it.each([
    [1, 0],
    ['s', 0],
    [null, 0],
    [{}, 1],
    [[], 1],
    [{ a: 1 }, 1],
    [{ a: {} }, 2],
    [{ a: [1, { b: 2 }] }, 3],
    [{ a: { b: { c: { d: { e: 1 } } } } }, 5],
    [{ a: { b: { c: { d: { e: {} } } } } }, 6],
  ])('%j has depth %i', (v, d) => {
    expect(jsonDepth(v)).toBe(d);
    expect(jsonDepth(v, 5)).toBe(d > 5 ? 6 : d);
  });

  it('with a cap it stops early on hostile nesting instead of overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(20_000) + ']'.repeat(20_000));
    expect(jsonDepth(deep, 5)).toBe(6);
    expect(() => jsonDepth(deep, 5)).not.toThrow();
  });
});

describe('join body metadata limits', () => {
  const nest = (n: number): unknown => (n === 0 ? 'leaf' : { k: nest(n - 1) });
  it('depth 5 passes, 6 fails', () => {
    expect(joinBody.safeParse({ email: 'a@b.co', metadata: nest(5) }).success).toBe(true);
    expect(joinBody.safeParse({ email: 'a@b.co', metadata: nest(6) }).success).toBe(false);
  });
  it('8192 bytes serialised pass, 8193 fail (multi-byte characters counted as bytes)', () => {
    const base = JSON.stringify({ k: '' }).length;
    expect(joinBody.safeParse({ email: 'a@b.co', metadata: { k: 'x'.repeat(8192 - base) } }).success).toBe(true);
    expect(joinBody.safeParse({ email: 'a@b.co', metadata: { k: 'x'.repeat(8193 - base) } }).success).toBe(false);
    expect(joinBody.safeParse({ email: 'a@b.co', metadata: { k: 'é'.repeat(4096) } }).success).toBe(false);
  });
});

describe('parseKey', () => {
  const lookup = 'A'.repeat(12);
  const secret = 'b'.repeat(32);
  it('splits a well-formed key into lookup and secret', () => {
    expect(parseKey(`wl_${lookup}${secret}`)).toEqual({ lookup, secret });
  });
  it.each([
    ['', 'empty'],
    [`${lookup}${secret}`, 'no wl_ prefix'],
    [`WL_${lookup}${secret}`, 'upper-case prefix'],
    [`wl_${lookup}${secret}x`, 'too long'],
    [`wl_${lookup}${secret.slice(1)}`, 'too short'],
    [`wl_${lookup}${secret.slice(1)}=`, 'bad character'],
    [`wl_${lookup} ${secret.slice(1)}`, 'space'],
  ])('%j (%s) → undefined', (value) => {
    expect(parseKey(value)).toBeUndefined();
  });
});

describe('escapeLike', () => {
  it.each([
    ['plain', 'plain'],
    ['100%', '100\\%'],
    ['a_b', 'a\\_b'],
    ['back\\slash', 'back\\\\slash'],
    ["o'brien", "o'brien"],
    ['%_\\', '\\%\\_\\\\'],
  ])('%j → %j', (input, out) => {
    expect(escapeLike(input)).toBe(out);
  });
});

describe('zodIssues', () => {
  const schema = z.strictObject({ name: z.string().min(1), nested: z.strictObject({ n: z.number() }).optional() });
  const issues = (v: unknown, ro: string[] = []) => {
    const r = schema.safeParse(v);
    if (r.success) throw new Error('expected failure');
    return zodIssues(r.error, ro);
  };
  it('one issue per offending field, dotted paths', () => {
    expect(issues({ name: '', nested: { n: 'x' } }).map((i) => i.path)).toEqual(['name', 'nested.n']);
  });
  it('unknown keys are named one by one, nested ones with their path', () => {
    expect(
      issues({ name: 'x', a: 1, b: 2, nested: { n: 1, c: 3 } })
        .map((i) => i.path)
        .sort(),
    ).toEqual(['a', 'b', 'nested.c']);
  });
  it('read-only fields get a "cannot be changed" message', () => {
    const [i] = issues({ name: 'x', slug: 'y' }, ['slug']);
    expect(i).toEqual({ path: 'slug', message: 'slug cannot be changed' });
  });
  it('several issues on one field collapse to one', () => {
    const s = z.object({ p: z.string().min(10).regex(/^\d+$/) });
    const r = s.safeParse({ p: 'ab' });
    expect(r.success).toBe(false);
    if (!r.success) expect(zodIssues(r.error)).toHaveLength(1);
  });
});

describe('paging', () => {
  it('pageArgs converts page/limit to offset/limit', () => {
    expect(pageArgs({ page: 1, limit: 20 })).toEqual({ offset: 0, limit: 20 });
    expect(pageArgs({ page: 3, limit: 7 })).toEqual({ offset: 14, limit: 7 });
  });
  it.each([
    [0, 20, 0],
    [1, 20, 1],
    [20, 20, 1],
    [21, 20, 2],
    [100, 1, 100],
  ])('total %i at limit %i → %i pages', (total, limit, pages) => {
    expect(pageOf([], { page: 1, limit }, total)).toEqual({ items: [], page: 1, limit, total, totalPages: pages });
  });
  it.each([
    [{}, { page: 1, limit: 20 }],
    [
      { page: '2', limit: '100' },
      { page: 2, limit: 100 },
    ],
    [{ page: '007' }, { page: 7, limit: 20 }],
  ])('pageQuery %j → %j', (q, out) => {
    expect(pageQuery.parse(q)).toEqual(out);
  });
  it.each([
    { page: '0' },
    { page: '1.5' },
    { page: 'abc' },
    { page: ['1', '2'] },
    { limit: '0' },
    { limit: '101' },
    { page: '' },
    { page: '9999999999' },
  ])('pageQuery rejects %j', (q) => {
    expect(pageQuery.safeParse(q).success).toBe(false);
  });
  it('entryListQuery trims search and drops an empty one', () => {
    expect(entryListQuery.parse({ search: '  ada ' }).search).toBe('ada');
    expect(entryListQuery.parse({ search: '   ' }).search).toBeUndefined();
  });
});
