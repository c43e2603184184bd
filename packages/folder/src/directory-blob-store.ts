/** `createDirectoryBlobStore`: a blob store over a folder, one file per key. */
import { assertBlobFolder, assertBlobKey, assertBlobRange, type BlobStore } from '@minca/core';
import { folderPath, keyPath } from './file-names.js';
import { removeAndPrune, staleTemps } from './folder-fs.js';
import { readFolderParts } from './folder-parts.js';
import { type FolderSource, toFolderFs } from './folder-source.js';
import { readKeyTree } from './key-tree.js';

/** Options of {@link createDirectoryBlobStore}. */
export interface DirectoryBlobStoreOptions {
  /** Flush each blob to the device before `put` resolves (fsync). Default true. */
  sync?: boolean;
}

/**
 * A blob store in a folder: each `/`-separated part of a key is a folder and the last a file,
 * named as a data folder names its files (`segment-1` is `segment-1.minca`). A folder goes with
 * the last key in it. A ranged read reads only its bytes of the file; a folder listing reads
 * only the one folder. Keys are checked with `assertBlobKey`. Temp files a crash left are
 * removed by the first listing that finds them over 30 s old.
 *
 * ```ts
 * const bucket = createDirectoryBlobStore('/media/usb/minca');
 * await bucket.put('spaces/x/seg-1', bytes);
 * ```
 */
export function createDirectoryBlobStore(
  dir: FolderSource,
  options: DirectoryBlobStoreOptions = {},
): BlobStore {
  const fs = toFolderFs(dir);
  const sync = options.sync ?? true;
  return {
    async get(key) {
      assertBlobKey(key);
      return (await fs.readFile(keyPath(key))) ?? null;
    },
    async getRange(key, offset, length) {
      assertBlobKey(key);
      assertBlobRange(offset, length);
      const path = keyPath(key);
      if (fs.readFileRange) return (await fs.readFileRange(path, offset, length)) ?? null;
      return (await fs.readFile(path))?.slice(offset, offset + length) ?? null;
    },
    async put(key, bytes) {
      assertBlobKey(key);
      if (!(bytes instanceof Uint8Array)) throw new TypeError('bytes must be a Uint8Array');
      const path = keyPath(key);
      await fs.writeFile(path, bytes.slice(), { sync });
      if (sync) await fs.syncFolder(path.slice(0, -1));
    },
    async delete(key) {
      assertBlobKey(key);
      await removeAndPrune(fs, keyPath(key), 0);
    },
    async list(prefix) {
      if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
      const temps = staleTemps(fs);
      const keys = await readKeyTree(fs, [], { prefix, onTemp: temps.onTemp });
      await temps.clear();
      return keys.sort();
    },
    async listFolders(prefix) {
      assertBlobFolder(prefix);
      const at = prefix === '' ? [] : folderPath(prefix.slice(0, -1));
      return (await readFolderParts(fs, at)).sort();
    },
  };
}
