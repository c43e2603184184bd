// The optional reads of a blob store, getRange and listFolders: the fallbacks core reads
// through when a store lacks them, and the conformance checks catching stores that get them
// wrong.
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../src/blob-store.ts';
import { getBlobRange, listBlobFolders } from '../src/blob-store.ts';
import { runBlobStoreCheck } from '../src/testing/blob-store-checks.ts';
import * as reads from '../src/testing/blob-store-read-checks.ts';
import { fakeBlobStore } from './fake-adapter.ts';

/** The fake blob store with its own getRange and listFolders, as given. */
const withReads = (extra: Partial<BlobStore>): BlobStore => ({ ...fakeBlobStore(), ...extra });

describe('ranged reads and folder listings', () => {
  it('read through get and list when a store has neither', async () => {
    const store = fakeBlobStore();
    await store.put('a/b/c', new Uint8Array([1, 2, 3, 4, 5]));
    await store.put('a/d', new Uint8Array([6]));
    expect(await getBlobRange(store, 'a/b/c', 1, 3)).toEqual(new Uint8Array([2, 3, 4]));
    expect(await getBlobRange(store, 'a/b/c', 9, 3)).toEqual(new Uint8Array(0));
    expect(await getBlobRange(store, 'a/x', 0, 3)).toBeNull();
    expect(await listBlobFolders(store, '')).toEqual(['a']);
    expect(await listBlobFolders(store, 'a/')).toEqual(['b']);
  });

  it('never give more than asked, whatever a store sends', async () => {
    const store = withReads({ getRange: async () => new Uint8Array(100) });
    expect((await getBlobRange(store, 'k', 0, 10))!.length).toBe(10);
  });

  it('the checks catch a ranged read off by one', async () => {
    const inner = fakeBlobStore();
    const store = withReads({
      ...inner,
      getRange: async (key, offset, length) =>
        (await inner.get(key))?.slice(offset, offset + length + 1) ?? null,
    });
    await expect(runBlobStoreCheck(reads.rangedReads, { store })).rejects.toThrow(/getRange/);
  });

  it('the checks catch a ranged read that is null for an empty blob', async () => {
    const inner = fakeBlobStore();
    const store = withReads({
      ...inner,
      getRange: async (key, offset, length) => {
        const bytes = await inner.get(key);
        return bytes?.length ? bytes.slice(offset, offset + length) : null;
      },
    });
    await expect(runBlobStoreCheck(reads.rangedReads, { store })).rejects.toThrow(/empty blob/);
  });

  it('the checks catch a ranged read that takes any argument', async () => {
    const inner = fakeBlobStore();
    const store = withReads({
      ...inner,
      getRange: async (key, offset, length) =>
        (await inner.get(key))?.slice(offset, offset + length) ?? null,
    });
    await expect(runBlobStoreCheck(reads.rangedReadArguments, { store })).rejects.toThrow(
      /negative offset/,
    );
  });

  it('the checks catch a folder listing with siblings', async () => {
    const inner = fakeBlobStore();
    const store = withReads({
      ...inner,
      // Matches keys by the prefix without its slash, so "f-x/q/1" shows under "f/" as "x".
      listFolders: async (prefix) => {
        const folders = new Set<string>();
        for (const key of await inner.list(prefix.slice(0, -1))) {
          const rest = key.slice(prefix.length);
          if (rest.includes('/')) folders.add(rest.slice(0, rest.indexOf('/')));
        }
        return [...folders].sort();
      },
    });
    await expect(runBlobStoreCheck(reads.listsFolders, { store })).rejects.toThrow(/listFolders/);
  });
});
