/** The blob store checks, and how one runs over a fresh context. */
import type { BlobStore } from '../blob-store.js';
import { isMincaError } from '../errors.js';
import { assert, assertBytes, assertIs, assertStrings, rejection } from './assert.js';
import { sampleBytes, valueFor } from './sample-bytes.js';

/** One blob store under test, as `setup()` gives it. */
export interface BlobStoreTestContext {
  store: BlobStore;
  /** Frees everything (temp dirs, servers). */
  teardown?: () => Promise<void>;
}

/** A blob store check: throws when the store breaks the contract. */
export type BlobStoreCheck = (store: BlobStore) => Promise<void>;

/** Runs one check, then tears the context down whatever happened. */
export async function runBlobStoreCheck(
  check: BlobStoreCheck,
  context: BlobStoreTestContext,
): Promise<void> {
  try {
    await check(context.store);
  } finally {
    await context.teardown?.();
  }
}

async function putAll(store: BlobStore, keys: readonly string[]): Promise<void> {
  for (const key of keys) await store.put(key, valueFor(key));
}

export async function getNullWhenAbsent(store: BlobStore): Promise<void> {
  assertIs(await store.get('absent'), null, 'get of an absent key');
  assertIs(await store.get('a/b/absent'), null, 'get of an absent nested key');
  assertStrings(await store.list(''), [], "list('') of an empty store");
  assertStrings(await store.list('a/'), [], 'list of an absent prefix');
}

export async function putGetOverwrite(store: BlobStore): Promise<void> {
  await store.put('k', valueFor('k', 1));
  assertBytes(await store.get('k'), valueFor('k', 1), 'get after put');
  await store.put('k', sampleBytes(1, 3));
  assertBytes(
    await store.get('k'),
    sampleBytes(1, 3),
    'get after overwriting with a shorter value',
  );
  await store.put('empty', new Uint8Array(0));
  assertBytes(
    await store.get('empty'),
    new Uint8Array(0),
    'an empty blob reads back as 0 bytes, not null',
  );
  assertStrings(await store.list(''), ['empty', 'k'], 'list after overwrite');
}

export async function deletes(store: BlobStore): Promise<void> {
  await putAll(store, ['a/x', 'a/y']);
  await store.delete('a/x');
  assertIs(await store.get('a/x'), null, 'get after delete');
  assertBytes(await store.get('a/y'), valueFor('a/y'), 'a key the delete did not name');
  await store.delete('a/x');
  await store.delete('never/there');
  assertStrings(await store.list(''), ['a/y'], 'list after deletes');
  await store.delete('a/y');
  assertStrings(await store.list(''), [], 'list after deleting the last key in a folder');
}

export async function listsUnderPrefix(store: BlobStore): Promise<void> {
  // No key is both a blob and a folder: a directory store can't hold that.
  const keys = [
    'foo/x',
    'foo/y/z',
    'foobar',
    'fop',
    'foo-1',
    'foo.2',
    'a/b/c',
    'a/b/d',
    'a/bc/e',
    'a/c',
    'B',
    '_u',
  ];
  const scrambled = [...keys].reverse();
  await putAll(store, scrambled);
  const expect = async (prefix: string) =>
    assertStrings(
      await store.list(prefix),
      keys.filter((k) => k.startsWith(prefix)).sort(),
      `list(${JSON.stringify(prefix)})`,
    );
  for (const prefix of [
    '',
    'foo',
    'foo/',
    'foo/y',
    'fo',
    'fop',
    'a/',
    'a/b',
    'a/b/',
    'a/bc',
    'x',
    'B',
  ]) {
    await expect(prefix);
  }
  assertStrings(
    await store.list('foo'),
    ['foo-1', 'foo.2', 'foo/x', 'foo/y/z', 'foobar'],
    "list('foo')",
  );
  assertStrings(await store.list('foo/'), ['foo/x', 'foo/y/z'], "list('foo/')");
  for (const key of keys) assertBytes(await store.get(key), valueFor(key), `get(${key})`);
}

export async function largeBlobs(store: BlobStore): Promise<void> {
  const big = sampleBytes(50, 1024 * 1024);
  await store.put('big/one', big);
  assertBytes(await store.get('big/one'), big, 'a 1 MiB blob');
  const view = sampleBytes(51, 1000).subarray(100, 600);
  await store.put('view', view);
  assertBytes(await store.get('view'), view.slice(), 'a blob put from a subarray');
}

export async function manyBlobKeys(store: BlobStore): Promise<void> {
  const n = 300;
  const keys = Array.from({ length: n }, (_, i) => `many/${String(i).padStart(3, '0')}`);
  for (let i = 0; i < n; i += 25) {
    await Promise.all(keys.slice(i, i + 25).map((key) => store.put(key, valueFor(key))));
  }
  assertStrings(await store.list('many/'), keys, `list of ${n} keys`);
  assertStrings(await store.list('many/29'), keys.slice(290, 300), "list('many/29')");
  for (const i of [0, 150, 299])
    assertBytes(await store.get(keys[i]!), valueFor(keys[i]!), `get(${keys[i]})`);
}

export async function bytesAreNotAliased(store: BlobStore): Promise<void> {
  const input = sampleBytes(60, 64);
  const expected = input.slice();
  await store.put('k', input);
  input.fill(0);
  assertBytes(await store.get('k'), expected, 'get after mutating the put input');
  (await store.get('k'))!.fill(1);
  assertBytes(await store.get('k'), expected, 'get after mutating a returned value');
}

/** Keys outside {@link assertBlobKey}'s grammar, each with why. */
export const INVALID_BLOB_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['', 'empty'],
  ['.hidden', 'a part starting with .'],
  ['a/..', 'a .. part'],
  ['a/./b', 'a . part'],
  ['a//b', 'an empty part'],
  ['a/', 'a trailing /'],
  ['/a', 'a leading /'],
  ['a b', 'a space'],
  ['a:b', 'a colon'],
  ['a\\b', 'a backslash'],
  ['é', 'a non-ASCII letter'],
  ['😀', 'an astral character'],
  ['a\u0000b', 'U+0000'],
  ['x'.repeat(201), 'a part of 201 characters'],
  [`${'x'.repeat(200)}/`.repeat(5) + 'x'.repeat(20), 'a key of 1,025 characters'],
];

/** The longest keys the grammar allows, and its odd but valid characters. */
export const VALID_EDGE_KEYS: readonly string[] = [
  'x'.repeat(200),
  `${'y'.repeat(200)}/`.repeat(5) + 'y'.repeat(19),
  '-dash',
  '_under',
  'a.b.c',
  'A-Z_0.9',
];

async function expectInvalid(run: () => Promise<unknown>, what: string): Promise<void> {
  const error = await rejection(run, what);
  assert(
    isMincaError(error, 'invalid_name'),
    `${what}: expected MincaError invalid_name, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
  );
}

export async function invalidKeysRejected(store: BlobStore): Promise<void> {
  for (const [key, why] of INVALID_BLOB_KEYS) {
    await expectInvalid(() => store.put(key, valueFor('bad')), `put of a key with ${why}`);
    await expectInvalid(() => store.get(key), `get of a key with ${why}`);
    await expectInvalid(() => store.delete(key), `delete of a key with ${why}`);
  }
  assertStrings(await store.list(''), [], 'nothing stored by rejected puts');
  for (const key of VALID_EDGE_KEYS) {
    await store.put(key, valueFor(key));
    assertBytes(await store.get(key), valueFor(key), `get(${JSON.stringify(key.slice(0, 20))}…)`);
  }
  assertStrings(await store.list(''), [...VALID_EDGE_KEYS].sort(), 'list of the edge keys');
}
