/** Checks of `list(prefix)`: prefixes of each other, the sibling trap, odd characters, the `\uffff` bound, sort order. */
import type { StorageAdapter } from '../adapter.js';
import { readEntries } from '../store-io.js';
import type { AdapterHarness } from './adapter-harness.js';
import { assertBytes, assertStrings } from './assert.js';
import { valueFor } from './sample-bytes.js';

/** Sorted by UTF-16 code units, which is what `Array.prototype.sort` does with strings. */
function sorted(keys: readonly string[]): string[] {
  return [...keys].sort();
}

/** Puts `keys` in a scrambled order over several batches, so insertion order can't pass for sorting. */
async function store(adapter: StorageAdapter, keys: readonly string[]): Promise<void> {
  const scrambled = keys.map((key, i) => ({ key, rank: (i * 7919) % (keys.length * 3 + 1) }));
  scrambled.sort((x, y) => x.rank - y.rank);
  for (let i = 0; i < scrambled.length; i += 5) {
    await adapter.batch(
      scrambled.slice(i, i + 5).map(({ key }) => ({ key, value: valueFor(key) })),
    );
  }
}

/** `list(prefix)` equals the keys starting with `prefix`, sorted; and each reads back. */
async function expectListing(adapter: StorageAdapter, all: readonly string[], prefix: string) {
  const expected = sorted(all.filter((key) => key.startsWith(prefix)));
  assertStrings(await adapter.list(prefix), expected, `list(${JSON.stringify(prefix)})`);
}

async function expectListings(
  adapter: StorageAdapter,
  all: readonly string[],
  prefixes: readonly string[],
) {
  for (const prefix of prefixes) await expectListing(adapter, all, prefix);
}

export async function emptyPrefixListsAll(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const keys = ['z', 'a', 'm/n', 'A', '0', 'a/b/c'];
  await store(a, keys);
  await expectListing(a, keys, '');
  const entries = await readEntries(a, '');
  assertStrings(
    entries.map(([k]) => k),
    sorted(keys),
    "readEntries('')",
  );
}

export async function nestedPrefixes(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const keys = ['a', 'ab', 'a/', 'a/b', 'a/b/c', 'abc', 'b'];
  await store(a, keys);
  await expectListings(a, keys, ['a', 'ab', 'a/', 'a/b', 'a/b/', 'abc', 'abcd', '']);
}

export async function siblingTrap(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const keys = [
    'fo',
    'foo',
    'foo/',
    'foo/bar',
    'foo-bar',
    'foo.bar',
    'foobar',
    'fop',
    'fop/x',
    'foo0',
    'fon',
  ];
  await store(a, keys);
  await expectListings(a, keys, ['foo', 'foo/', 'fop', 'fo', 'foo/b', 'foob']);
  assertStrings(
    await a.list('foo'),
    ['foo', 'foo-bar', 'foo.bar', 'foo/', 'foo/bar', 'foo0', 'foobar'],
    "list('foo')",
  );
  assertStrings(await a.list('foo/'), ['foo/', 'foo/bar'], "list('foo/')");
}

export async function oddCharacters(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const keys = [
    'a/b/c',
    'a:b',
    'a:b:c',
    'with space',
    'with  two',
    ' lead',
    'trail ',
    'é',
    'e\u0301',
    'ée',
    '日本',
    '日本語/ファイル',
    '😀',
    '😀/x',
    'x😀',
    'tab\tkey',
    'new\nline',
    'quote"\'',
    'back\\slash',
    '%2F',
    '?&=#',
    '~',
    'mirror:known:00ff',
    '\u007f',
    '\u0080',
  ];
  await store(a, keys);
  for (const key of keys)
    assertBytes(await a.get(key), valueFor(key), `get(${JSON.stringify(key)})`);
  await expectListings(a, keys, [
    '',
    'a',
    'a:',
    'a:b',
    'with',
    'é',
    'e',
    '日',
    '日本/',
    '日本語/',
    '😀',
    'x',
    'mirror:known:',
    '%',
    '\u007f',
  ]);
}

/**
 * Keys at and past `prefix + "\uffff"`: a range scan up to that bound misses `a\uffff\uffff`,
 * and a store sorting by UTF-8 or code points puts `a😀` (a surrogate pair) after `a\uffff`.
 */
export async function upperBoundKeys(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const keys = [
    '`',
    'a',
    'a\ufffe',
    'a\uffff',
    'a\uffff\uffff',
    'a\uffffz',
    'a\uffff\uffff\uffff',
    'a😀',
    'a\ud7ff',
    'a\ue000',
    'a\uffef',
    'b',
    '\uffff',
    '\uffff\uffff',
    '\uffffa',
    'ab\uffff',
    'abc',
  ];
  await store(a, keys);
  await expectListings(a, keys, [
    'a',
    'a\uffff',
    'a\uffff\uffff',
    'a\ufffe',
    '\uffff',
    'ab',
    'a😀',
    '',
  ]);
}

export async function sortedByCodeUnits(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const keys = [
    'B',
    'a',
    'b',
    'A',
    '_',
    '-',
    '.',
    '0',
    '9',
    'Z',
    'z',
    '~',
    'ä',
    'Ω',
    'ω',
    'я',
    '中',
    '\ue000',
    '\uff01',
    '😀',
    '𝄞',
    '🀄',
    'a0',
    'a-',
    'aa',
    'a_',
    'a.',
    'A0',
    ' ',
    '!',
    'ab/c',
    'ab-c',
    'abc',
  ];
  await store(a, keys);
  await expectListing(a, keys, '');
  // Astral characters are surrogate pairs (\ud800–\udfff), below \ue000 in code-unit order.
  const listed = await a.list('');
  assertStrings(
    listed.filter((key) => ['\ue000', '😀', '\uff01'].includes(key)),
    ['😀', '\ue000', '\uff01'],
    'an astral key sorts below \\ue000 (UTF-16 code units, not code points)',
  );
}
