/**
 * The blob store checks of the optional reads: a ranged read (`getRange`) and a folder listing
 * (`listFolders`). A store with its own method is held to it; one without is read through
 * `getBlobRange` and `listBlobFolders`, which show the answers readers will get from it.
 */
import { type BlobStore, getBlobRange, listBlobFolders } from '../blob-store.js';
import { isMincaError } from '../errors.js';
import { assert, assertBytes, assertIs, assertStrings, rejection } from './assert.js';
import { sampleBytes } from './sample-bytes.js';

/** The store's own ranged read, or the fallback readers use. */
const readRange = (store: BlobStore, key: string, offset: number, length: number) =>
  store.getRange ? store.getRange(key, offset, length) : getBlobRange(store, key, offset, length);

/** The store's own folder listing, or the fallback readers use. */
const readFolders = (store: BlobStore, prefix: string) =>
  store.listFolders ? store.listFolders(prefix) : listBlobFolders(store, prefix);

export async function rangedReads(store: BlobStore): Promise<void> {
  const bytes = sampleBytes(70, 1000);
  await store.put('r/k', bytes);
  const expect = async (offset: number, length: number) =>
    assertBytes(
      await readRange(store, 'r/k', offset, length),
      bytes.slice(offset, offset + length),
      `getRange("r/k", ${offset}, ${length}) of a 1000-byte blob`,
    );
  for (const [offset, length] of [
    [0, 10],
    [0, 1],
    [1, 1],
    [123, 456],
    [990, 10],
    [995, 10],
    [999, 1],
    [0, 1000],
    [0, 5000],
    [1000, 5],
    [2000, 5],
    [500, 0],
  ] as const) {
    await expect(offset, length);
  }
  assertIs(await readRange(store, 'r/absent', 0, 10), null, 'getRange of an absent key');
  assertIs(await readRange(store, 'x/y/absent', 5, 10), null, 'getRange of an absent nested key');
  await store.put('r/empty', new Uint8Array(0));
  assertBytes(
    await readRange(store, 'r/empty', 0, 10),
    new Uint8Array(0),
    'getRange of an empty blob is 0 bytes, not null',
  );
  // A chunk's worth from the middle of a large blob, as a mirror reads a file's chunk.
  const big = sampleBytes(71, 1024 * 1024);
  await store.put('r/big', big);
  assertBytes(
    await readRange(store, 'r/big', 300_001, 262_184),
    big.slice(300_001, 300_001 + 262_184),
    'a 256 KiB range from the middle of a 1 MiB blob',
  );
  const got = (await readRange(store, 'r/k', 10, 20))!;
  got.fill(0);
  assertBytes(await readRange(store, 'r/k', 10, 20), bytes.slice(10, 30), 'after mutating a range');
}

export async function rangedReadArguments(store: BlobStore): Promise<void> {
  await store.put('k', sampleBytes(72, 10));
  for (const [offset, length, why] of [
    [-1, 1, 'a negative offset'],
    [0, -1, 'a negative length'],
    [0.5, 1, 'a fractional offset'],
    [0, Number.NaN, 'a length that is NaN'],
  ] as const) {
    const error = await rejection(
      () => readRange(store, 'k', offset, length),
      `getRange with ${why}`,
    );
    assert(error instanceof RangeError, `getRange with ${why}: expected a RangeError`);
  }
  const error = await rejection(() => readRange(store, 'a//b', 0, 1), 'getRange of a bad key');
  assert(isMincaError(error, 'invalid_name'), 'getRange of a bad key: expected invalid_name');
}

export async function listsFolders(store: BlobStore): Promise<void> {
  const long = 'Q'.repeat(150); // longer than one file name once encoded, in some stores
  const keys = [
    'f/a/1',
    'f/a/2',
    'f/b/c/3',
    'f/z',
    `f/${long}/k`,
    'f-x/q/1',
    'fo/p/1',
    'g/h/1',
    'top',
  ];
  for (const key of [...keys].reverse()) await store.put(key, sampleBytes(73, 3));
  const expect = async (prefix: string, folders: string[]) =>
    assertStrings(
      await readFolders(store, prefix),
      folders,
      `listFolders(${JSON.stringify(prefix)})`,
    );
  await expect('', ['f', 'f-x', 'fo', 'g']);
  await expect('f/', [long, 'a', 'b'].sort());
  await expect('f/b/', ['c']);
  await expect('f/a/', []);
  await expect('none/', []);
  await expect(`f/${long}/`, []);
  const error = await rejection(() => readFolders(store, 'f'), 'listFolders("f")');
  assert(error instanceof RangeError, 'listFolders of a prefix without "/": expected a RangeError');
}
