import { isMincaError } from '@minca/core';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../src/index.ts';
import { assertKey, prefixRange, sortEntries, sortKeys } from '../src/key-order.ts';
import { TempDir } from './temp-db.ts';

describe('prefixRange', () => {
  it('bounds a prefix by its last code point plus one', () => {
    expect(prefixRange('')).toEqual({ from: '' });
    expect(prefixRange('foo')).toEqual({ from: 'foo', to: 'fop' });
    expect(prefixRange('a/')).toEqual({ from: 'a/', to: 'a0' });
    expect(prefixRange('a\uffff')).toEqual({ from: 'a\uffff', to: 'a\u{10000}' });
    expect(prefixRange('a😀')).toEqual({ from: 'a😀', to: 'a😁' });
    expect(prefixRange('a\ud7ff')).toEqual({ from: 'a\ud7ff', to: 'a\ue000' });
  });

  it('carries past U+10FFFF, and has no upper bound when nothing is left', () => {
    expect(prefixRange('a\u{10ffff}')).toEqual({ from: 'a\u{10ffff}', to: 'b' });
    expect(prefixRange('a\u{10ffff}\u{10ffff}')).toEqual({
      from: 'a\u{10ffff}\u{10ffff}',
      to: 'b',
    });
    expect(prefixRange('\u{10ffff}')).toEqual({ from: '\u{10ffff}' });
  });

  it('widens a prefix ending in a high surrogate and filters by it', () => {
    expect(prefixRange('a\ud83d')).toEqual({ from: 'a', to: 'b', startsWith: 'a\ud83d' });
    expect(prefixRange('\ud83d')).toEqual({ from: '', startsWith: '\ud83d' });
  });

  it('refuses U+0000 and lone surrogates with invalid_name, and non-strings with TypeError', () => {
    for (const bad of ['a\0', '\0', 'a\udc00', '\ud83dx', 'x\ude00y']) {
      expect(() => prefixRange(bad), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ code: 'invalid_name' }),
      );
    }
    expect(() => prefixRange(7)).toThrow(TypeError);
    expect(() => assertKey('a\ud83d')).toThrow(expect.objectContaining({ code: 'invalid_name' }));
    expect(() => assertKey('a😀\u{10ffff}')).not.toThrow();
  });
});

describe('sorting SQLite rows into code unit order', () => {
  it('sorts only where code point order and code unit order differ', () => {
    const keys = ['a', '\ue000', '😀'];
    expect(sortKeys([...keys])).toEqual(['a', '😀', '\ue000']);
    const sorted = ['a', 'b'];
    expect(sortKeys(sorted)).toBe(sorted);
    expect(
      sortEntries([
        ['\uffff', 1],
        ['😀', 2],
      ]),
    ).toEqual([
      ['😀', 2],
      ['\uffff', 1],
    ]);
  });
});

// Every key over a small alphabet of the characters where the orders and bounds go wrong,
// listed under every prefix, against JavaScript's own startsWith and sort.
describe('listing through SQLite matches startsWith and sort', () => {
  let dir: TempDir | undefined;
  afterEach(() => dir?.dispose());

  it('for every prefix of every key of up to three characters', async () => {
    dir = new TempDir();
    const stores = sqliteStores(dir.open());
    const a = await stores.open('spaces/order');
    const alphabet = ['a', '\u007f', '\u0080', '\ud7ff', '\ue000', '\uffff', '😀', '\u{10ffff}'];
    const keys: string[] = [];
    for (const x of alphabet) {
      keys.push(x);
      for (const y of alphabet) {
        keys.push(x + y);
        for (const z of ['a', '\uffff', '😀', '\u{10ffff}']) keys.push(x + y + z);
      }
    }
    await a.batch(keys.map((key) => ({ key, value: new TextEncoder().encode(key) })));
    const prefixes = new Set(['', '\ud83d', 'a\ud83d']);
    for (const key of keys) for (let i = 1; i <= key.length; i++) prefixes.add(key.slice(0, i));
    for (const prefix of prefixes) {
      const expected = keys.filter((key) => key.startsWith(prefix)).sort();
      expect(await a.list(prefix), JSON.stringify(prefix)).toEqual(expected);
      const entries = await a.entries!(prefix);
      expect(entries.map(([key]) => key)).toEqual(expected);
      for (const [key, value] of entries) expect(new TextDecoder().decode(value)).toBe(key);
    }
  });

  it('refuses a key with U+0000 or a lone surrogate and stores nothing of its batch', async () => {
    dir = new TempDir();
    const stores = sqliteStores(dir.open());
    const a = await stores.open('spaces/names');
    await a.batch([{ key: 'kept', value: new Uint8Array([1]) }]);
    for (const key of ['a\0b', '\0', 'x\udc00', 'y\ud800']) {
      const error = await a
        .batch([
          { key: 'new', value: new Uint8Array([2]) },
          { key: 'kept', value: undefined },
          { key, value: new Uint8Array([3]) },
        ])
        .catch((e: unknown) => e);
      expect(isMincaError(error, 'invalid_name'), JSON.stringify(key)).toBe(true);
      await expect(a.get(key)).rejects.toMatchObject({ code: 'invalid_name' });
      await expect(
        a.commit!({
          versions: [],
          entries: [{ key, value: new Uint8Array(1) }],
          deleteVersions: [],
        }),
      ).rejects.toMatchObject({ code: 'invalid_name' });
    }
    expect(await a.list('')).toEqual(['kept']);
  });
});
