/** A blob store in memory, for tests. */
import { assertBlobFolder, assertBlobKey, assertBlobRange, type BlobStore } from '@minca/core';

/**
 * A blob store kept in a map, with ranged reads and folder listings. Copies bytes in and out;
 * keys are checked by `assertBlobKey`.
 */
export function createMemoryBlobStore(): BlobStore {
  const blobs = new Map<string, Uint8Array>();
  return {
    async get(key) {
      assertBlobKey(key);
      return blobs.get(key)?.slice() ?? null;
    },
    async getRange(key, offset, length) {
      assertBlobKey(key);
      assertBlobRange(offset, length);
      return blobs.get(key)?.slice(offset, offset + length) ?? null;
    },
    async put(key, bytes) {
      assertBlobKey(key);
      if (!(bytes instanceof Uint8Array)) throw new TypeError('bytes must be a Uint8Array');
      blobs.set(key, bytes.slice());
    },
    async delete(key) {
      assertBlobKey(key);
      blobs.delete(key);
    },
    async list(prefix) {
      const keys: string[] = [];
      for (const key of blobs.keys()) if (key.startsWith(prefix)) keys.push(key);
      return keys.sort();
    },
    async listFolders(prefix) {
      assertBlobFolder(prefix);
      const folders = new Set<string>();
      for (const key of blobs.keys()) {
        if (!key.startsWith(prefix)) continue;
        const slash = key.indexOf('/', prefix.length);
        if (slash !== -1) folders.add(key.slice(prefix.length, slash));
      }
      return [...folders].sort();
    },
  };
}
