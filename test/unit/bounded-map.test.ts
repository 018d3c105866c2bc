// The caches' map bounded by size as well as count (src/db/bounded-map.ts): a project row carries its
// settings (up to 256 KiB), so 10,000 cached rows bounded by count alone could hold gigabytes.
import { describe, expect, it } from 'vitest';
import { BoundedMap, CACHE_WEIGHT, rowWeight } from '../../src/db/bounded-map.js';
import { featureSettings, settingsCacheWeight } from '../../src/core/settings.js';

const byLength = () => new BoundedMap<string, string>(3, 100, (_k, v) => v.length);

describe('BoundedMap', () => {
  it('drops the oldest entries when the total weight would pass its bound', () => {
    const m = byLength();
    m.set('a', 'x'.repeat(40)).set('b', 'x'.repeat(40));
    expect(m.weight).toBe(80);
    m.set('c', 'x'.repeat(30)); // 110 > 100: a goes
    expect([m.get('a'), m.get('b')?.length, m.get('c')?.length]).toEqual([undefined, 40, 30]);
    expect(m.weight).toBe(70);
  });

  it('drops the oldest entries past its count, and keeps nothing heavier than the whole bound', () => {
    const m = byLength();
    for (const k of ['a', 'b', 'c', 'd']) m.set(k, k);
    expect(m.size).toBe(3);
    expect(m.get('a')).toBeUndefined();
    m.set('huge', 'x'.repeat(101));
    expect(m.get('huge')).toBeUndefined();
    expect(m.size).toBe(3);
  });

  it('replacing or deleting a key gives its weight back', () => {
    const m = byLength();
    m.set('a', 'x'.repeat(50)).set('a', 'x'.repeat(10));
    expect(m.weight).toBe(10);
    expect(m.delete('a')).toBe(true);
    expect(m.delete('a')).toBe(false);
    expect([m.size, m.weight]).toEqual([0, 0]);
    m.set('b', 'yy');
    m.clear();
    expect([m.size, m.weight]).toEqual([0, 0]);
  });

  it('weighs a row by its strings', () => {
    expect(rowWeight({ id: 'prj_1', settings: 'x'.repeat(1000), n: 5 })).toBe(256 + 5 + 1000);
    expect(rowWeight(undefined)).toBe(256);
  });
});

describe('the parsed-settings cache', () => {
  it('stays within its size bound however many large settings texts it sees', () => {
    // 400 distinct texts of ~200 KB: 160 MB of keys alone under the old bound of 1,000 entries.
    const pad = 'x'.repeat(200_000);
    for (let i = 0; i < 400; i++) featureSettings({ settings: JSON.stringify({ pageTitle: `T${i}`, pad }) });
    expect(settingsCacheWeight()).toBeLessThanOrEqual(CACHE_WEIGHT);
    expect(settingsCacheWeight()).toBeGreaterThan(CACHE_WEIGHT / 2); // it does cache
    expect(featureSettings({ settings: JSON.stringify({ pageTitle: 'T399', pad }) }).pageTitle).toBe('T399');
  });
});
